#ifndef CNSE_PIXELS_H
#define CNSE_PIXELS_H

// Whole-image decoding to RGBA and encoding back, for the UIKit stand-in's UIImage: the bitmap an app's own
// extension holds when it decodes an image, which is what counts against the extension's memory limit.
// Every setjmp/longjmp of libpng, libjpeg and giflib stays in this C file.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CNSE_PIXELS_OK = 0,
    /// Not a PNG, JPEG or GIF (by its first bytes).
    CNSE_PIXELS_UNKNOWN_FORMAT = 1,
    /// The data does not decode.
    CNSE_PIXELS_CORRUPT = 2,
    /// Width x height exceeds max_pixels; nothing was allocated for pixels.
    CNSE_PIXELS_TOO_MANY_PIXELS = 3,
    /// malloc failed, or an encoder could not produce its output.
    CNSE_PIXELS_FAILED = 4,
} cnse_pixels_status;

/// A decoded image: width x height pixels, 4 bytes each (R, G, B, A, not premultiplied), rows top to bottom.
typedef struct {
    uint8_t *rgba;       ///< malloc'ed by the decoder; release with cnse_bitmap_free
    uint32_t width;      ///< also set when the image is refused for its size
    uint32_t height;
    uint32_t format;     ///< 1 PNG, 2 JPEG, 3 GIF; 0 if unknown
    char message[256];   ///< the decoder's own words for a failure; "" if none
} cnse_bitmap;

/// Encoded bytes: malloc'ed, release with cnse_encoded_free.
typedef struct {
    uint8_t *bytes;
    size_t length;
    char message[256];
} cnse_encoded;

/// Decodes PNG, JPEG or GIF (its first frame, on its logical screen) from memory into RGBA.
cnse_pixels_status cnse_decode_rgba(const uint8_t *data, size_t length, uint64_t max_pixels, cnse_bitmap *bitmap);
void cnse_bitmap_free(cnse_bitmap *bitmap);

/// Encodes RGBA pixels as an 8-bit RGBA PNG.
cnse_pixels_status cnse_encode_png(const uint8_t *rgba, uint32_t width, uint32_t height, cnse_encoded *out);
/// Encodes RGBA pixels as a baseline JPEG at `quality` (1...100); alpha is dropped.
cnse_pixels_status cnse_encode_jpeg(const uint8_t *rgba, uint32_t width, uint32_t height, int quality, cnse_encoded *out);
void cnse_encoded_free(cnse_encoded *out);

#ifdef __cplusplus
}
#endif

#endif
