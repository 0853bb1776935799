#ifndef CIMAGEFIXTURES_H
#define CIMAGEFIXTURES_H

// Real encoders (libpng, libjpeg, giflib) that tests and the benchmark use to make images of any size.
// Images are deterministic (same arguments, same bytes) and written row by row: memory is O(width), except
// progressive JPEG, whose encoder keeps a whole-image coefficient buffer.
// Every function returns 0 on success and non-zero on failure (a partial file may be left behind).

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Writes an 8-bit RGB PNG (Adam7-interlaced if `interlaced` is non-zero). Width and height must be > 0.
int cimagefixtures_write_png(const char *path, uint32_t width, uint32_t height, int interlaced, uint32_t seed);

/// Writes a YCbCr JPEG from RGB pixels; `quality` 1...100, progressive if `progressive` is non-zero.
/// Width and height must be 1...65500 (libjpeg's JPEG_MAX_DIMENSION).
int cimagefixtures_write_jpeg(const char *path, uint32_t width, uint32_t height, int quality, int progressive,
                              uint32_t seed);

/// How a JPEG written by cimagefixtures_write_jpeg_scans arranges its scans.
typedef enum {
    /// One interleaved sequential scan: the only kind libjpeg decodes without a whole-image buffer.
    CIMAGEFIXTURES_SCANS_BASELINE = 0,
    /// libjpeg's simple progression (6 scans grey, 10 colour).
    CIMAGEFIXTURES_SCANS_PROGRESSIVE = 1,
    /// Sequential (SOF0 baseline) but one scan per component, as some encoders write.
    CIMAGEFIXTURES_SCANS_NONINTERLEAVED = 2,
    /// Progressive with exactly `scan_count` scans (1...694): a DC scan, then single-coefficient AC scans
    /// refined one bit at a time.
    CIMAGEFIXTURES_SCANS_MANY = 3,
} cimagefixtures_jpeg_scans;

/// Writes a JPEG of `components` (1 grey, 3 YCbCr, 4 CMYK) at quality 90 with the given scan arrangement.
/// `scan_count` is read only for CIMAGEFIXTURES_SCANS_MANY.
int cimagefixtures_write_jpeg_scans(const char *path, uint32_t width, uint32_t height, int components,
                                    cimagefixtures_jpeg_scans scans, uint32_t scan_count, uint32_t seed);

/// Rewrites the width and height in a JPEG's frame header (SOF0, SOF1 or SOF2) and nothing else: a small file
/// that claims a huge image, whose data then ends early. Width and height must be 1...65535.
int cimagefixtures_patch_jpeg_size(const char *path, uint32_t width, uint32_t height);

/// Writes a GIF89a with a 256-colour global palette and `frames` full-canvas frames. With more than one frame
/// it is an endless animation (NETSCAPE2.0 loop extension, a graphics control extension of 0.1 s per frame).
/// `frames` may be 0, which writes a well-formed file with no image at all (for decoder tests).
/// Width and height must be 1...65535 (the GIF format's limit).
int cimagefixtures_write_gif(const char *path, uint32_t width, uint32_t height, uint32_t frames, uint32_t seed);

#ifdef __cplusplus
}
#endif

#endif
