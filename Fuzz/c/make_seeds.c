// Writes small seed images of every kind the checkers branch on, with the project's real encoders
// (Sources/CImageFixtures), into the three directories given: png, jpeg, gif.
// Why besides samples/media: the samples hold no progressive, multi-scan, CMYK, grey or interlaced files.

#include "CImageFixtures.h"

#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s PNG_DIR JPEG_DIR GIF_DIR\n", argv[0]);
        return 2;
    }
    char path[4096];
    int failures = 0;
#define SEED(dir, name, call)                                   \
    snprintf(path, sizeof(path), "%s/%s", dir, name);           \
    failures += (call) != 0;
    SEED(argv[1], "rgb-16x8.png", cimagefixtures_write_png(path, 16, 8, 0, 1));
    SEED(argv[1], "interlaced-13x11.png", cimagefixtures_write_png(path, 13, 11, 1, 2));
    SEED(argv[2], "baseline-16x16.jpg", cimagefixtures_write_jpeg_scans(path, 16, 16, 3, CIMAGEFIXTURES_SCANS_BASELINE, 0, 1));
    SEED(argv[2], "progressive-24x16.jpg", cimagefixtures_write_jpeg_scans(path, 24, 16, 3, CIMAGEFIXTURES_SCANS_PROGRESSIVE, 0, 2));
    SEED(argv[2], "grey-progressive-16x16.jpg", cimagefixtures_write_jpeg_scans(path, 16, 16, 1, CIMAGEFIXTURES_SCANS_PROGRESSIVE, 0, 3));
    SEED(argv[2], "cmyk-progressive-16x16.jpg", cimagefixtures_write_jpeg_scans(path, 16, 16, 4, CIMAGEFIXTURES_SCANS_PROGRESSIVE, 0, 4));
    SEED(argv[2], "noninterleaved-16x16.jpg", cimagefixtures_write_jpeg_scans(path, 16, 16, 3, CIMAGEFIXTURES_SCANS_NONINTERLEAVED, 0, 5));
    SEED(argv[2], "many-scans-8x8.jpg", cimagefixtures_write_jpeg_scans(path, 8, 8, 1, CIMAGEFIXTURES_SCANS_MANY, 40, 6));
    SEED(argv[3], "still-16x8.gif", cimagefixtures_write_gif(path, 16, 8, 1, 1));
    SEED(argv[3], "animated-8x8.gif", cimagefixtures_write_gif(path, 8, 8, 3, 2));
#undef SEED
    return failures == 0 ? 0 : 1;
}
