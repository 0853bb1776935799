#ifndef CNSE_H
#define CNSE_H

// Typed C entry points for the parts of libcurl, libpng, libjpeg and giflib that Swift cannot call
// directly: variadic functions, function-like macros and every setjmp/longjmp error path.
// Swift never sees a raw C error convention: NSEKit turns these return values into thrown errors.

#include <stddef.h>
#include <stdint.h>
#include <curl/curl.h>
#include "cnse_pixels.h"

#ifdef __cplusplus
extern "C" {
#endif

// MARK: libcurl (curl_easy_setopt / curl_easy_getinfo are variadic: one wrapper per argument kind)

typedef size_t (*cnse_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*cnse_curl_progress_callback)(void *context, curl_off_t download_total, curl_off_t download_now,
                                           curl_off_t upload_total, curl_off_t upload_now);

CURLcode cnse_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode cnse_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode cnse_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode cnse_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
/// CURLOPT_WRITEFUNCTION or CURLOPT_HEADERFUNCTION.
CURLcode cnse_curl_setopt_data_callback(CURL *handle, CURLoption option, cnse_curl_data_callback callback);
/// CURLOPT_XFERINFOFUNCTION (and CURLOPT_NOPROGRESS 0). A NULL callback sets CURLOPT_NOPROGRESS back to 1.
CURLcode cnse_curl_setopt_progress_callback(CURL *handle, cnse_curl_progress_callback callback);

CURLcode cnse_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode cnse_curl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
/// The string is owned by the handle and valid until the next transfer or cleanup; may be set to NULL.
CURLcode cnse_curl_getinfo_string(CURL *handle, CURLINFO info, const char **value);

// MARK: Loading libcurl (curl_library.c: nse loads it when first used, not at start)

/// Why libcurl could not be loaded, or NULL when it is loaded (loading it first if it is not yet).
/// NSE_LIBCURL names the library to load instead of libcurl.so.4.
const char *cnse_curl_load_error(void);
/// Starts loading libcurl on a thread of its own, for a command that will download soon: the loading then
/// overlaps the command's own start instead of delaying its first download.
void cnse_curl_preload(void);

// MARK: libcurl's multi interface (curl_multi_setopt is variadic; CURLMsg holds a union)

CURLMcode cnse_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
/// The next finished transfer: returns 1 and fills `easy` and `result`, or 0 when no transfer has finished.
int cnse_curl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result);

// MARK: Image validation: decode every row of every frame within the caller's limits

typedef enum {
    CNSE_IMAGE_OK = 0,
    /// The file does not decode: bad signature, CRC, Huffman data, truncated stream...
    CNSE_IMAGE_CORRUPT = 1,
    /// Width x height (of the canvas or any frame) exceeds max_pixels; nothing was allocated for pixels.
    CNSE_IMAGE_TOO_MANY_PIXELS = 2,
    /// The file could not be opened or read.
    CNSE_IMAGE_IO_ERROR = 3,
    /// Decoding needs more memory than max_memory; report.needed is the byte count asked for (a lower bound
    /// when the decoder ran out part-way). Refused before the large allocation whenever the need is known up front.
    CNSE_IMAGE_OVER_MEMORY_LIMIT = 4,
    /// The pixels of every frame (GIF) or every scan (JPEG) add up to more than max_pixel_work; report.needed
    /// is the total including the frame or scan that was refused, which was not decoded.
    CNSE_IMAGE_OVER_WORK_LIMIT = 5,
    /// A GIF with more than max_frames frames; report.needed is the number of the refused frame.
    CNSE_IMAGE_OVER_FRAME_LIMIT = 6,
    /// A JPEG with more than max_scans scans; report.needed is the number of the refused scan.
    CNSE_IMAGE_OVER_SCAN_LIMIT = 7,
} cnse_image_status;

/// What one check may spend. Why each exists: a file under 10 MB can claim gigapixels, gigabytes of decoder
/// memory or minutes of CPU; every limit is checked before the work or allocation it bounds.
typedef struct {
    /// Width x height of the canvas or of any one frame.
    uint64_t max_pixels;
    /// Bytes the decoder may allocate for one image (row buffers, JPEG coefficient buffers, chunk data).
    uint64_t max_memory;
    /// Pixels decoded, summed over every frame (GIF), pass (PNG: the image once) and scan (JPEG: the image once
    /// per scan, since each scan of a progressive or multi-scan JPEG walks the whole image again).
    uint64_t max_pixel_work;
    /// GIF frames.
    uint32_t max_frames;
    /// JPEG scans.
    uint32_t max_scans;
} cnse_image_limits;

typedef struct {
    uint32_t width;      ///< canvas width (GIF logical screen), 0 if unknown
    uint32_t height;     ///< canvas height, 0 if unknown
    uint32_t frames;     ///< 1 for PNG and JPEG; image descriptors seen for GIF
    uint32_t scans;      ///< JPEG scans started; 0 for PNG and GIF
    uint32_t warnings;   ///< recoverable problems the decoder reported (libjpeg "corrupt data" warnings,
                         ///< libpng warnings and benign errors such as a bad iCCP profile); saturates
    uint64_t pixel_work; ///< pixels decoded so far, as counted against max_pixel_work
    uint64_t needed;     ///< for an OVER_*_LIMIT status: the amount that went over (see each status)
    uint64_t limit;      ///< for an OVER_*_LIMIT status: the limit it went over
    uint32_t decoded_in_full; ///< 1 when the library decoded every row: the *_full reference checks, and a PNG or
                              ///< GIF whose cheap path handed the file over (damage, or anything it cannot vouch for)
    char message[256];   ///< the decoder's own words for the first error, or first warning; "" if none
} cnse_image_report;

/// Validates a PNG: signature, every chunk CRC (critical and ancillary), every row of every pass, IEND.
/// Text and other metadata chunks (tEXt, zTXt, iTXt, sPLT, eXIf, pCAL, sCAL) are CRC-checked but not parsed.
/// APNG animation chunks are unknown to libpng: CRC-checked and skipped, so frames is 1 and only the default
/// image is decoded. Every libpng allocation counts against max_memory; the row buffers (three rows: libpng's
/// two and ours) are checked against it as soon as the header is read.
cnse_image_status cnse_png_check(const char *path, const cnse_image_limits *limits, cnse_image_report *report);
/// Validates a JPEG: header, every scan, every scanline. Corrupt-data warnings are counted, not fatal:
/// a truncated JPEG is OK with warnings ("Premature end of JPEG file"). The memory a JPEG needs (a whole-image
/// coefficient buffer for progressive and multi-scan files, row buffers for all) is computed from the header and
/// refused before decoding; libjpeg's own max_memory_to_use backs that up.
cnse_image_status cnse_jpeg_check(const char *path, const cnse_image_limits *limits, cnse_image_report *report);
/// Validates a GIF: screen descriptor, every frame's LZW data, extensions, trailer.
/// A file that ends before its trailer (0x3B) is CORRUPT even when every frame was complete.
/// Memory is one row of at most 65,535 bytes plus giflib's fixed tables, whatever the file says.
cnse_image_status cnse_gif_check(const char *path, const cnse_image_limits *limits, cnse_image_report *report);
/// The reference checks behind the three above: libpng unfilters every row (zlib inflating it row by row), libjpeg
/// decodes every pixel at full scale, giflib decodes every row of every frame. nse uses the three above, which find
/// the same damage for less work (ISA-L's inflate and filter bytes for the PNG image data, and string lengths for
/// a GIF frame's LZW codes, each falling back to the full decode whenever anything is off; JPEG at 1/8 scale, where
/// every entropy-coded block is still decoded); the tests run both and compare.
cnse_image_status cnse_png_check_full(const char *path, const cnse_image_limits *limits, cnse_image_report *report);
cnse_image_status cnse_jpeg_check_full(const char *path, const cnse_image_limits *limits, cnse_image_report *report);
cnse_image_status cnse_gif_check_full(const char *path, const cnse_image_limits *limits, cnse_image_report *report);

#ifdef __cplusplus
}
#endif

// The HTML report's previews (uses cnse_image_limits above).
#include "cnse_thumbnail.h"

#endif
