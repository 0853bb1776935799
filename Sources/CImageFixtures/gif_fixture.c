// cimagefixtures_write_gif: a real giflib encoder writing palette frames one line at a time (EGifPutLine).
// Why the low-level API: EGifSpew needs every frame's raster in memory; line by line keeps one row.
// Why our own output function: it writes through a FILE we open (usual permissions, fclose errors seen).

#include "CImageFixtures.h"
#include "fixture_pixels.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <gif_lib.h>

/// Frame delay of the animation, in hundredths of a second.
#define CIMAGEFIXTURES_GIF_DELAY 10

static int cimagefixtures_gif_write(GifFileType *gif, const GifByteType *bytes, int length) {
    FILE *file = gif->UserData;
    return (int)fwrite(bytes, 1, (size_t)length, file);
}

/// NETSCAPE2.0 application extension with a loop count of 0: the animation repeats forever.
static int cimagefixtures_gif_put_loop(GifFileType *gif) {
    static const GifByteType application[11] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
    static const GifByteType loop[3] = {0x01, 0x00, 0x00};  // sub-block id 1, loop count 0 (little-endian)
    if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(gif, sizeof(application), application) == GIF_ERROR ||
        EGifPutExtensionBlock(gif, sizeof(loop), loop) == GIF_ERROR ||
        EGifPutExtensionTrailer(gif) == GIF_ERROR) {
        return GIF_ERROR;
    }
    return GIF_OK;
}

static int cimagefixtures_gif_put_frame_delay(GifFileType *gif) {
    GraphicsControlBlock control = {
        .DisposalMode = DISPOSE_DO_NOT,
        .UserInputFlag = false,
        .DelayTime = CIMAGEFIXTURES_GIF_DELAY,
        .TransparentColor = NO_TRANSPARENT_COLOR,
    };
    GifByteType extension[4];
    size_t length = EGifGCBToExtension(&control, extension);
    return EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, (int)length, extension);
}

static int cimagefixtures_gif_encode(GifFileType *gif, uint32_t width, uint32_t height, uint32_t frames,
                                     uint32_t seed) {
    ColorMapObject *palette = GifMakeMapObject(256, NULL);
    if (palette == NULL) {
        return GIF_ERROR;
    }
    for (int i = 0; i < 256; i++) {
        palette->Colors[i].Red = (GifByteType)i;
        palette->Colors[i].Green = (GifByteType)(255 - i);
        palette->Colors[i].Blue = (GifByteType)((i * 7) ^ (int)seed);
    }
    // GIF89a, because of the extensions; giflib would otherwise pick GIF87a in low-level mode.
    EGifSetGifVersion(gif, true);
    int result = EGifPutScreenDesc(gif, (int)width, (int)height, 8, 0, palette);  // copies the palette
    GifFreeMapObject(palette);
    if (result == GIF_ERROR) {
        return GIF_ERROR;
    }
    if (frames > 1 && cimagefixtures_gif_put_loop(gif) == GIF_ERROR) {
        return GIF_ERROR;
    }

    GifPixelType *row = malloc(width);
    if (row == NULL) {
        return GIF_ERROR;
    }
    for (uint32_t frame = 0; frame < frames && result != GIF_ERROR; frame++) {
        if (frames > 1 && cimagefixtures_gif_put_frame_delay(gif) == GIF_ERROR) {
            result = GIF_ERROR;
            break;
        }
        if (EGifPutImageDesc(gif, 0, 0, (int)width, (int)height, false, NULL) == GIF_ERROR) {
            result = GIF_ERROR;
            break;
        }
        for (uint32_t y = 0; y < height; y++) {
            cimagefixtures_fill_index_row(row, width, y, frame, seed);
            if (EGifPutLine(gif, row, (int)width) == GIF_ERROR) {
                result = GIF_ERROR;
                break;
            }
        }
    }
    free(row);
    return result;
}

int cimagefixtures_write_gif(const char *path, uint32_t width, uint32_t height, uint32_t frames, uint32_t seed) {
    if (path == NULL || width == 0 || height == 0 || width > 65535 || height > 65535) {
        return 1;
    }
    FILE *file = fopen(path, "wb");
    if (file == NULL) {
        return 1;
    }
    int error = 0;
    GifFileType *gif = EGifOpen(file, cimagefixtures_gif_write, &error);
    if (gif == NULL) {
        fclose(file);
        return 1;
    }
    int result = cimagefixtures_gif_encode(gif, width, height, frames, seed) == GIF_OK ? 0 : 1;
    // Writes the trailer and frees giflib's state; the FILE stays ours (EGifOpen gave giflib no FILE).
    if (EGifCloseFile(gif, &error) == GIF_ERROR) {
        result = 1;
    }
    if (fclose(file) != 0) {
        result = 1;
    }
    return result;
}
