// Writes the hardening issue's hostile images (all under 10 MB) into the directory given, for
// Benchmarks/hostile/measure.sh. Flat content keeps the large ones small on disk; the JPEGs that claim
// 10000 x 10000 are small real files whose frame header is patched (Sources/CImageFixtures).

#include "CImageFixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gif_lib.h>
#include <jpeglib.h>

/// A flat grey progressive JPEG with `scan_count` scans: a DC scan, then single-coefficient AC scans refined
/// one bit at a time (the same script as CIMAGEFIXTURES_SCANS_MANY, on content that compresses to almost nothing).
static int flat_progressive_jpeg(const char *path, int width, int height, int scan_count) {
    static jpeg_scan_info script[1 + 63 * 11];
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr error;
    FILE *file = fopen(path, "wb");
    if (file == NULL) {
        return 1;
    }
    cinfo.err = jpeg_std_error(&error);  // exits on error: fine for a one-off generator
    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, file);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 1;
    cinfo.in_color_space = JCS_GRAYSCALE;
    jpeg_set_defaults(&cinfo);
    int count = 0;
    script[count++] = (jpeg_scan_info){.comps_in_scan = 1, .component_index = {0}, .Ss = 0, .Se = 0, .Ah = 0, .Al = 0};
    for (int k = 1; k <= 63 && count < scan_count; k++) {
        for (int al = 10; al >= 0 && count < scan_count; al--) {
            script[count++] = (jpeg_scan_info){.comps_in_scan = 1, .component_index = {0}, .Ss = k, .Se = k,
                                               .Ah = al == 10 ? 0 : al + 1, .Al = al};
        }
    }
    cinfo.scan_info = script;
    cinfo.num_scans = count;
    jpeg_start_compress(&cinfo, TRUE);
    JSAMPROW row = malloc((size_t)width);
    for (int x = 0; x < width; x++) {
        row[x] = (JSAMPLE)(x * 255 / width);
    }
    while (cinfo.next_scanline < cinfo.image_height) {
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    free(row);
    return fclose(file) != 0;
}

static int gif_write(GifFileType *gif, const GifByteType *bytes, int length) {
    return (int)fwrite(bytes, 1, (size_t)length, (FILE *)gif->UserData);
}

/// A GIF of `frames` identical flat full-canvas frames: one frame is encoded by giflib, then its image block
/// (descriptor, LZW data, block terminator) is repeated.
static int flat_gif(const char *path, const char *scratch, int width, int height, int frames) {
    FILE *file = fopen(scratch, "wb");
    int error = 0;
    GifFileType *gif = EGifOpen(file, gif_write, &error);
    GifColorType colors[2] = {{0, 0, 0}, {255, 255, 255}};
    ColorMapObject *map = GifMakeMapObject(2, colors);
    GifPixelType *row = calloc((size_t)width, 1);
    if (gif == NULL || map == NULL || row == NULL || EGifPutScreenDesc(gif, width, height, 1, 0, map) == GIF_ERROR ||
        EGifPutImageDesc(gif, 0, 0, width, height, false, NULL) == GIF_ERROR) {
        return 1;
    }
    for (int y = 0; y < height; y++) {
        EGifPutLine(gif, row, width);
    }
    EGifCloseFile(gif, &error);  // writes the trailer; a FILE given through EGifOpen stays ours to close
    fclose(file);
    GifFreeMapObject(map);
    free(row);

    FILE *in = fopen(scratch, "rb");
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    rewind(in);
    unsigned char *bytes = malloc((size_t)size);
    if (fread(bytes, 1, (size_t)size, in) != (size_t)size) {
        return 1;
    }
    fclose(in);
    remove(scratch);
    // Header (6) + logical screen descriptor (7) + 2-colour global map (6); the frame runs to its 0 terminator.
    long start = 19, end = start + 10 + 1;
    while (end < size && bytes[end] != 0) {
        end += bytes[end] + 1;
    }
    end += 1;
    FILE *out = fopen(path, "wb");
    fwrite(bytes, 1, (size_t)start, out);
    for (int i = 0; i < frames; i++) {
        fwrite(bytes + start, 1, (size_t)(end - start), out);
    }
    fputc(0x3B, out);
    free(bytes);
    return fclose(out) != 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIRECTORY\n", argv[0]);
        return 2;
    }
    char path[4096], scratch[4096];
    int failures = 0;
#define PATH(name) (snprintf(path, sizeof(path), "%s/%s", argv[1], name), path)
    failures += cimagefixtures_write_jpeg_scans(PATH("cmyk-progressive-claims-10000.jpg"), 16, 16, 4, CIMAGEFIXTURES_SCANS_PROGRESSIVE, 0, 1);
    failures += cimagefixtures_patch_jpeg_size(path, 10000, 10000);
    failures += cimagefixtures_write_jpeg_scans(PATH("noninterleaved-claims-10000.jpg"), 16, 16, 3, CIMAGEFIXTURES_SCANS_NONINTERLEAVED, 0, 1);
    failures += cimagefixtures_patch_jpeg_size(path, 10000, 10000);
    failures += flat_progressive_jpeg(PATH("progressive-10000-499-scans.jpg"), 10000, 10000, 499);
    failures += flat_progressive_jpeg(PATH("progressive-4000x3000-499-scans.jpg"), 4000, 3000, 499);
    snprintf(scratch, sizeof(scratch), "%s/one-frame.tmp", argv[1]);
    failures += flat_gif(PATH("gif-146-frames-10000.gif"), scratch, 10000, 10000, 146);
    failures += flat_gif(PATH("gif-5000-frames-1000.gif"), scratch, 1000, 1000, 5000);
#undef PATH
    return failures == 0 ? 0 : 1;
}
