// cimagefixtures_write_jpeg: a real libjpeg encoder writing an RGB image one scanline at a time.
// Why in C: libjpeg's default error_exit calls exit(), and its replacement must longjmp, never across Swift.
// Progressive output is the exception to O(width) memory: libjpeg buffers every coefficient of the image to
// emit it scan by scan.

#include "CImageFixtures.h"
#include "fixture_pixels.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr base;  // first, so a j_common_ptr's err converts to this type
    jmp_buf jump;
} cimagefixtures_jpeg_error;

static void cimagefixtures_jpeg_error_exit(j_common_ptr cinfo) {
    longjmp(((cimagefixtures_jpeg_error *)cinfo->err)->jump, 1);
}

static void cimagefixtures_jpeg_emit_message(j_common_ptr cinfo, int level) {
    // Silent: the default writes warnings to stderr, which would clutter test output.
    (void)cinfo;
    (void)level;
}

/// Everything between jpeg_create_compress and jpeg_destroy_compress: the only place that uses setjmp.
static int cimagefixtures_jpeg_encode(FILE *file, uint32_t width, uint32_t height, int quality, int progressive,
                                      uint32_t seed) {
    struct jpeg_compress_struct cinfo;
    cimagefixtures_jpeg_error error;
    cinfo.err = jpeg_std_error(&error.base);
    error.base.error_exit = cimagefixtures_jpeg_error_exit;
    error.base.emit_message = cimagefixtures_jpeg_emit_message;

    // Changed after setjmp and read after longjmp, hence volatile (C11 7.13.2.1).
    JSAMPROW volatile row = NULL;

    if (setjmp(error.jump) != 0) {
        free(row);
        jpeg_destroy_compress(&cinfo);
        return 1;
    }

    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, file);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (progressive) {
        jpeg_simple_progression(&cinfo);
    }
    jpeg_start_compress(&cinfo, TRUE);

    row = malloc((size_t)width * 3);
    if (row == NULL) {
        jpeg_destroy_compress(&cinfo);
        return 1;
    }
    while (cinfo.next_scanline < cinfo.image_height) {
        cimagefixtures_fill_rgb_row(row, width, cinfo.next_scanline, seed);
        JSAMPROW rows[1] = {row};
        jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);

    free(row);
    row = NULL;
    jpeg_destroy_compress(&cinfo);
    return 0;
}

int cimagefixtures_write_jpeg(const char *path, uint32_t width, uint32_t height, int quality, int progressive,
                              uint32_t seed) {
    if (path == NULL || width == 0 || height == 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION ||
        quality < 1 || quality > 100) {
        return 1;
    }
    FILE *file = fopen(path, "wb");
    if (file == NULL) {
        return 1;
    }
    int result = cimagefixtures_jpeg_encode(file, width, height, quality, progressive, seed);
    if (fclose(file) != 0) {
        result = 1;
    }
    return result;
}
