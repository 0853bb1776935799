#ifndef CNSE_THUMBNAIL_H
#define CNSE_THUMBNAIL_H

// Small previews of attachments for the HTML report: decoded with scaling (libjpeg's scale_num/scale_denom,
// rows of PNG and GIF box-filtered as they arrive), so memory depends on the output size and one source row,
// not on the image; re-encoded as JPEG (or PNG when the preview has transparency).

#include <stddef.h>
#include <stdint.h>

// Included at the end of CNSE.h, after cnse_image_limits and cnse_image_status.

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CNSE_THUMBNAIL_JPEG = 1,
    CNSE_THUMBNAIL_PNG = 2,
    CNSE_THUMBNAIL_GIF = 3,
} cnse_thumbnail_format;

typedef struct {
    /// The part of the image to keep, normalized to 0...1 from the top-left corner (iOS's
    /// ThumbnailClippingRectKey); a width or height <= 0 keeps the whole image. Clamped to the image.
    double clip_x, clip_y, clip_width, clip_height;
    /// The frame of an animated GIF to show (ThumbnailTimeKey); past the last frame, the last one.
    uint32_t frame;
    /// The largest output size; the image is scaled down (never up) to fit, keeping its aspect ratio.
    uint32_t max_width, max_height;
    /// The encoded preview's largest size in bytes: JPEG quality is lowered (and PNG turned into JPEG) to fit.
    size_t max_bytes;
} cnse_thumbnail_request;

typedef struct {
    /// The encoded preview (malloc'd; release with cnse_thumbnail_free); NULL on failure.
    uint8_t *data;
    size_t size;
    /// 1 when `data` is a PNG, 0 for a JPEG.
    int is_png;
    uint32_t width, height;
    /// The source image's size (the GIF's canvas) and the frame shown (0-based; 0 for still images).
    uint32_t source_width, source_height;
    uint32_t frame;
    char message[256];
} cnse_thumbnail_result;

/// 0 on success; otherwise a cnse_image_status value with `message`. `limits` are the image checks' own
/// (pixels, decoder memory, pixel work, frames, scans), so no preview costs more than validating the image.
int cnse_thumbnail_make(const char *path, cnse_thumbnail_format format, const cnse_image_limits *limits,
                        const cnse_thumbnail_request *request, cnse_thumbnail_result *result);

void cnse_thumbnail_free(cnse_thumbnail_result *result);

/// The preview's pixels before encoding: `*rgba` receives width x height straight-alpha RGBA bytes (sizes in
/// `result`; `data` stays NULL), to release with cnse_thumbnail_free_pixels. Same status values as above.
int cnse_thumbnail_pixels(const char *path, cnse_thumbnail_format format, const cnse_image_limits *limits,
                          const cnse_thumbnail_request *request, cnse_thumbnail_result *result, uint8_t **rgba);

void cnse_thumbnail_free_pixels(uint8_t *rgba);

#ifdef __cplusplus
}
#endif

#endif
