// cimagefixtures_write_png: a real libpng encoder writing an RGB image one row at a time.
// Why in C: libpng reports errors by longjmp, which must never cross a Swift frame.

#include "CImageFixtures.h"
#include "fixture_pixels.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <png.h>

static void cimagefixtures_png_error(png_structp png, png_const_charp message) {
    (void)message;
    png_longjmp(png, 1);
}

static void cimagefixtures_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

/// Everything between png_create_write_struct and png_destroy_write_struct: the only place that uses setjmp.
static int cimagefixtures_png_encode(FILE *file, uint32_t width, uint32_t height, int interlaced, uint32_t seed) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, cimagefixtures_png_error,
                                              cimagefixtures_png_warning);
    if (png == NULL) {
        return 1;
    }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_write_struct(&png, NULL);
        return 1;
    }

    // Changed after setjmp and read after longjmp, hence volatile (C11 7.13.2.1).
    png_bytep volatile row = NULL;

    if (setjmp(png_jmpbuf(png)) != 0) {
        free(row);
        png_destroy_write_struct(&png, &info);
        return 1;
    }

    png_init_io(png, file);
    // libpng's default per-side limit (1,000,000) applies to writing too; tests need long, thin images.
    png_set_user_limits(png, 0x7fffffffu, 0x7fffffffu);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB,
                 interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);

    row = malloc((size_t)width * 3);
    if (row == NULL) {
        png_destroy_write_struct(&png, &info);
        return 1;
    }
    // With interlace handling libpng wants the whole image once per pass and picks each pass's pixels itself,
    // so regenerating rows (instead of keeping the image) keeps memory at one row.
    int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; pass++) {
        for (uint32_t y = 0; y < height; y++) {
            cimagefixtures_fill_rgb_row(row, width, y, seed);
            png_write_row(png, row);
        }
    }
    png_write_end(png, info);

    free(row);
    row = NULL;
    png_destroy_write_struct(&png, &info);
    return 0;
}

int cimagefixtures_write_png(const char *path, uint32_t width, uint32_t height, int interlaced, uint32_t seed) {
    if (path == NULL || width == 0 || height == 0 || width > 0x7fffffffu || height > 0x7fffffffu) {
        return 1;
    }
    FILE *file = fopen(path, "wb");
    if (file == NULL) {
        return 1;
    }
    int result = cimagefixtures_png_encode(file, width, height, interlaced, seed);
    if (fclose(file) != 0) {
        result = 1;
    }
    return result;
}
