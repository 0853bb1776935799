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

/// Writes a GIF89a with a 256-colour global palette and `frames` full-canvas frames. With more than one frame
/// it is an endless animation (NETSCAPE2.0 loop extension, a graphics control extension of 0.1 s per frame).
/// `frames` may be 0, which writes a well-formed file with no image at all (for decoder tests).
/// Width and height must be 1...65535 (the GIF format's limit).
int cimagefixtures_write_gif(const char *path, uint32_t width, uint32_t height, uint32_t frames, uint32_t seed);

#ifdef __cplusplus
}
#endif

#endif
