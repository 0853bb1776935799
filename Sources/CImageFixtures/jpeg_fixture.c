// cimagefixtures_write_jpeg: a real libjpeg encoder writing an RGB image one scanline at a time.
// Why in C: libjpeg's default error_exit calls exit(), and its replacement must longjmp, never across Swift.
// Progressive and multi-scan output are the exception to O(width) memory: libjpeg buffers every coefficient of
// the image to emit it scan by scan.

#include "CImageFixtures.h"
#include "fixture_pixels.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

/// Successive-approximation depth of each AC band in the many-scans script: Al = 10 is libjpeg's largest for
/// 8-bit samples, so each band takes 11 scans (one first scan and ten refinements).
#define CIMAGEFIXTURES_JPEG_MAX_AL 10

/// Most scans the many-scans script can describe: the DC scan, then 63 bands of 11 scans each.
#define CIMAGEFIXTURES_JPEG_MAX_SCANS (1 + 63 * (CIMAGEFIXTURES_JPEG_MAX_AL + 1))

/// What the encoder writes: the public functions' arguments, checked.
typedef struct {
    uint32_t width;
    uint32_t height;
    int components;  // 1 grey, 3 YCbCr from RGB, 4 CMYK
    int quality;
    cimagefixtures_jpeg_scans scans;
    uint32_t scan_count;
    uint32_t seed;
} cimagefixtures_jpeg_options;

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
/// Writes one row of `components` samples per pixel, drawn from the RGB fixture pixels so every kind differs.
static void cimagefixtures_jpeg_fill_row(JSAMPROW row, const JSAMPLE *rgb, uint32_t width, int components) {
    for (uint32_t x = 0; x < width; x++) {
        const JSAMPLE *pixel = rgb + 3 * (size_t)x;
        JSAMPLE *out = row + (size_t)components * x;
        if (components == 1) {
            out[0] = pixel[1];
        } else {
            memcpy(out, pixel, 3);
            if (components == 4) {
                out[3] = (JSAMPLE)(pixel[0] ^ pixel[2]);
            }
        }
    }
}

/// The scan script for CIMAGEFIXTURES_SCANS_NONINTERLEAVED (one full sequential scan per component) or
/// CIMAGEFIXTURES_SCANS_MANY (a DC scan of every component, then single-coefficient AC scans of component 0
/// refined one bit at a time: every prefix of that list is a valid progressive script). Returns the count.
static int cimagefixtures_jpeg_script(jpeg_scan_info *script, const cimagefixtures_jpeg_options *options) {
    if (options->scans == CIMAGEFIXTURES_SCANS_NONINTERLEAVED) {
        for (int c = 0; c < options->components; c++) {
            script[c] = (jpeg_scan_info){.comps_in_scan = 1, .component_index = {c}, .Ss = 0, .Se = 63, .Ah = 0, .Al = 0};
        }
        return options->components;
    }
    int count = 0;
    script[count] = (jpeg_scan_info){.comps_in_scan = options->components, .Ss = 0, .Se = 0, .Ah = 0, .Al = 0};
    for (int c = 0; c < options->components; c++) {
        script[count].component_index[c] = c;
    }
    count++;
    for (int k = 1; k <= 63 && (uint32_t)count < options->scan_count; k++) {
        for (int al = CIMAGEFIXTURES_JPEG_MAX_AL; al >= 0 && (uint32_t)count < options->scan_count; al--) {
            int ah = al == CIMAGEFIXTURES_JPEG_MAX_AL ? 0 : al + 1;
            script[count++] = (jpeg_scan_info){.comps_in_scan = 1, .component_index = {0}, .Ss = k, .Se = k, .Ah = ah, .Al = al};
        }
    }
    return count;
}

static int cimagefixtures_jpeg_encode(FILE *file, const cimagefixtures_jpeg_options *options) {
    uint32_t width = options->width;
    uint32_t seed = options->seed;
    // Static size, so the script outlives jpeg_start_compress without an allocation to free on error paths.
    jpeg_scan_info script[CIMAGEFIXTURES_JPEG_MAX_SCANS];
    struct jpeg_compress_struct cinfo;
    cimagefixtures_jpeg_error error;
    cinfo.err = jpeg_std_error(&error.base);
    error.base.error_exit = cimagefixtures_jpeg_error_exit;
    error.base.emit_message = cimagefixtures_jpeg_emit_message;

    // Changed after setjmp and read after longjmp, hence volatile (C11 7.13.2.1).
    JSAMPROW volatile row = NULL;
    JSAMPROW volatile rgb = NULL;

    if (setjmp(error.jump) != 0) {
        free(row);
        free(rgb);
        jpeg_destroy_compress(&cinfo);
        return 1;
    }

    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, file);
    cinfo.image_width = width;
    cinfo.image_height = options->height;
    cinfo.input_components = options->components;
    cinfo.in_color_space = options->components == 1 ? JCS_GRAYSCALE : options->components == 4 ? JCS_CMYK : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, options->quality, TRUE);
    switch (options->scans) {
    case CIMAGEFIXTURES_SCANS_BASELINE:
        break;
    case CIMAGEFIXTURES_SCANS_PROGRESSIVE:
        jpeg_simple_progression(&cinfo);
        break;
    case CIMAGEFIXTURES_SCANS_NONINTERLEAVED:
    case CIMAGEFIXTURES_SCANS_MANY:
        cinfo.num_scans = cimagefixtures_jpeg_script(script, options);
        cinfo.scan_info = script;
        break;
    }
    jpeg_start_compress(&cinfo, TRUE);

    row = malloc((size_t)width * (size_t)options->components);
    rgb = malloc((size_t)width * 3);
    if (row == NULL || rgb == NULL) {
        free(row);
        free(rgb);
        jpeg_destroy_compress(&cinfo);
        return 1;
    }
    while (cinfo.next_scanline < cinfo.image_height) {
        cimagefixtures_fill_rgb_row(rgb, width, cinfo.next_scanline, seed);
        cimagefixtures_jpeg_fill_row(row, rgb, width, options->components);
        JSAMPROW rows[1] = {row};
        jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);

    free(row);
    row = NULL;
    free(rgb);
    rgb = NULL;
    jpeg_destroy_compress(&cinfo);
    return 0;
}

static int cimagefixtures_jpeg_write(const char *path, const cimagefixtures_jpeg_options *options) {
    if (path == NULL || options->width == 0 || options->height == 0 || options->width > JPEG_MAX_DIMENSION ||
        options->height > JPEG_MAX_DIMENSION || options->quality < 1 || options->quality > 100 ||
        (options->components != 1 && options->components != 3 && options->components != 4) ||
        (options->scans == CIMAGEFIXTURES_SCANS_MANY &&
         (options->scan_count == 0 || options->scan_count > CIMAGEFIXTURES_JPEG_MAX_SCANS))) {
        return 1;
    }
    FILE *file = fopen(path, "wb");
    if (file == NULL) {
        return 1;
    }
    int result = cimagefixtures_jpeg_encode(file, options);
    if (fclose(file) != 0) {
        result = 1;
    }
    return result;
}

int cimagefixtures_write_jpeg(const char *path, uint32_t width, uint32_t height, int quality, int progressive,
                              uint32_t seed) {
    cimagefixtures_jpeg_options options = {
        .width = width, .height = height, .components = 3, .quality = quality,
        .scans = progressive ? CIMAGEFIXTURES_SCANS_PROGRESSIVE : CIMAGEFIXTURES_SCANS_BASELINE, .scan_count = 0,
        .seed = seed,
    };
    return cimagefixtures_jpeg_write(path, &options);
}

int cimagefixtures_write_jpeg_scans(const char *path, uint32_t width, uint32_t height, int components,
                                    cimagefixtures_jpeg_scans scans, uint32_t scan_count, uint32_t seed) {
    cimagefixtures_jpeg_options options = {
        .width = width, .height = height, .components = components, .quality = 90, .scans = scans,
        .scan_count = scan_count, .seed = seed,
    };
    return cimagefixtures_jpeg_write(path, &options);
}

int cimagefixtures_patch_jpeg_size(const char *path, uint32_t width, uint32_t height) {
    if (path == NULL || width == 0 || height == 0 || width > 0xFFFF || height > 0xFFFF) {
        return 1;
    }
    FILE *file = fopen(path, "r+b");
    if (file == NULL) {
        return 1;
    }
    // Walks the marker segments after SOI (FFD8) up to the first SOFn; libjpeg writes no fill bytes before them.
    int result = 1;
    unsigned char segment[4];
    long offset = 2;
    while (fseek(file, offset, SEEK_SET) == 0 && fread(segment, 1, 4, file) == 4 && segment[0] == 0xFF) {
        int marker = segment[1];
        long length = ((long)segment[2] << 8) | segment[3];
        if (marker >= 0xC0 && marker <= 0xC2) {
            // SOFn: length (2), precision (1), height (2), width (2).
            unsigned char size[4] = {(unsigned char)(height >> 8), (unsigned char)height,
                                     (unsigned char)(width >> 8), (unsigned char)width};
            if (fseek(file, offset + 5, SEEK_SET) == 0 && fwrite(size, 1, 4, file) == 4) {
                result = 0;
            }
            break;
        }
        offset += 2 + length;
    }
    if (fclose(file) != 0) {
        result = 1;
    }
    return result;
}
