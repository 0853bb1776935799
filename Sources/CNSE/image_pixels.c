// Whole-image decoding to RGBA and encoding back with libpng, libjpeg(-turbo) and giflib, for UIImage.
// Why a second decoder beside the checkers: they keep O(width) memory on purpose, whereas an app's own
// `UIImage(data:)` holds every pixel, and that bitmap is exactly what the extension's memory limit is about.

#include "cnse_pixels.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>
#include <jpeglib.h>
#include <gif_lib.h>

static void cnse_pixels_message(char *message, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void cnse_pixels_message(char *message, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, 256, format, arguments);
    va_end(arguments);
}

/// width x height x 4 without overflow, or 0 when it would not fit in size_t.
static size_t cnse_rgba_bytes(uint64_t width, uint64_t height) {
    if (width == 0 || height == 0) return 0;
    uint64_t pixels = width * height;
    if (pixels / width != height || pixels > SIZE_MAX / 4) return 0;
    return (size_t)pixels * 4;
}

/// Records the size (so a refused image still says how large it is) and refuses what max_pixels does not allow.
static cnse_pixels_status cnse_check_size(cnse_bitmap *bitmap, uint64_t width, uint64_t height, uint64_t max_pixels) {
    bitmap->width = width > UINT32_MAX ? UINT32_MAX : (uint32_t)width;
    bitmap->height = height > UINT32_MAX ? UINT32_MAX : (uint32_t)height;
    if (width == 0 || height == 0) {
        cnse_pixels_message(bitmap->message, "the image has no pixels (%llu x %llu)",
                            (unsigned long long)width, (unsigned long long)height);
        return CNSE_PIXELS_CORRUPT;
    }
    if (width * height > max_pixels || cnse_rgba_bytes(width, height) == 0) {
        cnse_pixels_message(bitmap->message, "%llu x %llu pixels is over the limit of %llu",
                            (unsigned long long)width, (unsigned long long)height, (unsigned long long)max_pixels);
        return CNSE_PIXELS_TOO_MANY_PIXELS;
    }
    return CNSE_PIXELS_OK;
}

// MARK: PNG, through libpng's simplified API (which keeps its own setjmp inside libpng)

static cnse_pixels_status cnse_decode_png(const uint8_t *data, size_t length, uint64_t max_pixels, cnse_bitmap *bitmap) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, length)) {
        cnse_pixels_message(bitmap->message, "%s", image.message);
        return CNSE_PIXELS_CORRUPT;
    }
    cnse_pixels_status status = cnse_check_size(bitmap, image.width, image.height, max_pixels);
    if (status != CNSE_PIXELS_OK) {
        png_image_free(&image);
        return status;
    }
    image.format = PNG_FORMAT_RGBA;
    size_t bytes = cnse_rgba_bytes(image.width, image.height);
    uint8_t *rgba = malloc(bytes);
    if (rgba == NULL) {
        png_image_free(&image);
        cnse_pixels_message(bitmap->message, "out of memory for %zu bytes of pixels", bytes);
        return CNSE_PIXELS_FAILED;
    }
    if (!png_image_finish_read(&image, NULL, rgba, 0, NULL)) {
        cnse_pixels_message(bitmap->message, "%s", image.message);
        free(rgba);
        png_image_free(&image);
        return CNSE_PIXELS_CORRUPT;
    }
    bitmap->rgba = rgba;
    bitmap->width = image.width;
    bitmap->height = image.height;
    return CNSE_PIXELS_OK;
}

// MARK: JPEG: libjpeg reports errors through error_exit, which must not return (nor call exit()).

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char *message;
} cnse_pixels_jpeg_error;

static void cnse_pixels_jpeg_exit(j_common_ptr info) {
    cnse_pixels_jpeg_error *error = (cnse_pixels_jpeg_error *)info->err;
    char text[JMSG_LENGTH_MAX];
    (*info->err->format_message)(info, text);
    cnse_pixels_message(error->message, "%s", text);
    longjmp(error->jump, 1);
}

/// Corrupt-data warnings are tolerated, as ImageIO shows what decodes.
static void cnse_pixels_jpeg_quiet(j_common_ptr info, int level) {
    (void)info;
    (void)level;
}

static cnse_pixels_status cnse_decode_jpeg(const uint8_t *data, size_t length, uint64_t max_pixels, cnse_bitmap *bitmap) {
    struct jpeg_decompress_struct info;
    cnse_pixels_jpeg_error error;
    // Changed after setjmp and read after a longjmp: volatile.
    uint8_t *volatile rgba = NULL;
    volatile cnse_pixels_status status = CNSE_PIXELS_CORRUPT;
    info.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = cnse_pixels_jpeg_exit;
    error.manager.emit_message = cnse_pixels_jpeg_quiet;
    error.message = bitmap->message;
    if (setjmp(error.jump)) {
        free(rgba);
        jpeg_destroy_decompress(&info);
        return status;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)length);
    jpeg_read_header(&info, TRUE);
    status = cnse_check_size(bitmap, info.image_width, info.image_height, max_pixels);
    if (status != CNSE_PIXELS_OK) {
        jpeg_destroy_decompress(&info);
        return status;
    }
    status = CNSE_PIXELS_CORRUPT;
    info.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&info);
    size_t bytes = cnse_rgba_bytes(info.output_width, info.output_height);
    rgba = malloc(bytes);
    if (rgba == NULL) {
        cnse_pixels_message(bitmap->message, "out of memory for %zu bytes of pixels", bytes);
        jpeg_destroy_decompress(&info);
        return CNSE_PIXELS_FAILED;
    }
    size_t stride = (size_t)info.output_width * 4;
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = rgba + (size_t)info.output_scanline * stride;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    bitmap->rgba = rgba;
    bitmap->width = info.output_width;
    bitmap->height = info.output_height;
    jpeg_destroy_decompress(&info);
    return CNSE_PIXELS_OK;
}

// MARK: GIF: the first frame on the logical screen; giflib reports errors by return value.

typedef struct {
    const uint8_t *data;
    size_t length;
    size_t offset;
} cnse_gif_source;

static int cnse_gif_read(GifFileType *gif, GifByteType *buffer, int count) {
    cnse_gif_source *source = gif->UserData;
    if (count <= 0) return 0;
    size_t available = source->length - source->offset;
    size_t take = (size_t)count < available ? (size_t)count : available;
    memcpy(buffer, source->data + source->offset, take);
    source->offset += take;
    return (int)take;
}

static cnse_pixels_status cnse_gif_failure(GifFileType *gif, cnse_bitmap *bitmap, uint8_t *rgba, GifPixelType *line) {
    int code = gif->Error;
    cnse_pixels_message(bitmap->message, "%s", GifErrorString(code) != NULL ? GifErrorString(code) : "GIF error");
    free(rgba);
    free(line);
    int ignored;
    DGifCloseFile(gif, &ignored);
    return CNSE_PIXELS_CORRUPT;
}

static cnse_pixels_status cnse_decode_gif(const uint8_t *data, size_t length, uint64_t max_pixels, cnse_bitmap *bitmap) {
    cnse_gif_source source = {data, length, 0};
    int error = 0;
    GifFileType *gif = DGifOpen(&source, cnse_gif_read, &error);
    if (gif == NULL) {
        cnse_pixels_message(bitmap->message, "%s", GifErrorString(error) != NULL ? GifErrorString(error) : "GIF error");
        return CNSE_PIXELS_CORRUPT;
    }
    cnse_pixels_status status = cnse_check_size(bitmap, (uint64_t)gif->SWidth, (uint64_t)gif->SHeight, max_pixels);
    if (status != CNSE_PIXELS_OK) {
        DGifCloseFile(gif, &error);
        return status;
    }
    uint32_t width = (uint32_t)gif->SWidth, height = (uint32_t)gif->SHeight;
    // The canvas starts transparent, as ImageIO shows the parts of the screen no frame covers.
    uint8_t *rgba = calloc(cnse_rgba_bytes(width, height), 1);
    if (rgba == NULL) {
        DGifCloseFile(gif, &error);
        cnse_pixels_message(bitmap->message, "out of memory for the %u x %u canvas", width, height);
        return CNSE_PIXELS_FAILED;
    }
    int transparent = NO_TRANSPARENT_COLOR;
    GifRecordType record;
    do {
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) return cnse_gif_failure(gif, bitmap, rgba, NULL);
        if (record == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *block;
            if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return cnse_gif_failure(gif, bitmap, rgba, NULL);
            if (code == GRAPHICS_EXT_FUNC_CODE && block != NULL) {
                GraphicsControlBlock control;
                if (DGifExtensionToGCB(block[0], block + 1, &control) == GIF_OK) transparent = control.TransparentColor;
            }
            while (block != NULL) {
                if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return cnse_gif_failure(gif, bitmap, rgba, NULL);
            }
        }
    } while (record != IMAGE_DESC_RECORD_TYPE && record != TERMINATE_RECORD_TYPE);
    if (record == TERMINATE_RECORD_TYPE) {
        free(rgba);
        DGifCloseFile(gif, &error);
        cnse_pixels_message(bitmap->message, "the GIF has no frame");
        return CNSE_PIXELS_CORRUPT;
    }
    if (DGifGetImageDesc(gif) == GIF_ERROR) return cnse_gif_failure(gif, bitmap, rgba, NULL);
    GifImageDesc *frame = &gif->Image;
    ColorMapObject *colors = frame->ColorMap != NULL ? frame->ColorMap : gif->SColorMap;
    if (frame->Width <= 0 || frame->Height <= 0 || (uint64_t)frame->Width * (uint64_t)frame->Height > max_pixels) {
        free(rgba);
        DGifCloseFile(gif, &error);
        cnse_pixels_message(bitmap->message, "the first frame's size (%d x %d) is invalid", frame->Width, frame->Height);
        return CNSE_PIXELS_CORRUPT;
    }
    GifPixelType *line = malloc((size_t)frame->Width);
    if (line == NULL) return cnse_gif_failure(gif, bitmap, rgba, NULL);
    // Interlaced frames arrive in four passes; row_at maps the n-th row read to its place in the frame.
    static const int starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
    int passes = frame->Interlace ? 4 : 1;
    for (int pass = 0; pass < passes; pass++) {
        int start = frame->Interlace ? starts[pass] : 0, step = frame->Interlace ? steps[pass] : 1;
        for (int y = start; y < frame->Height; y += step) {
            if (DGifGetLine(gif, line, frame->Width) == GIF_ERROR) return cnse_gif_failure(gif, bitmap, rgba, line);
            long row = (long)frame->Top + y;
            if (row < 0 || row >= (long)height) continue;
            for (int x = 0; x < frame->Width; x++) {
                long column = (long)frame->Left + x;
                if (column < 0 || column >= (long)width || line[x] == transparent) continue;
                uint8_t *pixel = rgba + ((size_t)row * width + (size_t)column) * 4;
                if (colors != NULL && line[x] < colors->ColorCount) {
                    GifColorType color = colors->Colors[line[x]];
                    pixel[0] = color.Red;
                    pixel[1] = color.Green;
                    pixel[2] = color.Blue;
                }
                pixel[3] = 255;
            }
        }
    }
    free(line);
    DGifCloseFile(gif, &error);
    bitmap->rgba = rgba;
    bitmap->width = width;
    bitmap->height = height;
    return CNSE_PIXELS_OK;
}

cnse_pixels_status cnse_decode_rgba(const uint8_t *data, size_t length, uint64_t max_pixels, cnse_bitmap *bitmap) {
    memset(bitmap, 0, sizeof *bitmap);
    static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (data != NULL && length >= 8 && memcmp(data, png_signature, 8) == 0) {
        bitmap->format = 1;
        return cnse_decode_png(data, length, max_pixels, bitmap);
    }
    if (data != NULL && length >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff) {
        bitmap->format = 2;
        return cnse_decode_jpeg(data, length, max_pixels, bitmap);
    }
    if (data != NULL && length >= 6 && (memcmp(data, "GIF87a", 6) == 0 || memcmp(data, "GIF89a", 6) == 0)) {
        bitmap->format = 3;
        return cnse_decode_gif(data, length, max_pixels, bitmap);
    }
    cnse_pixels_message(bitmap->message, "not a PNG, JPEG or GIF");
    return CNSE_PIXELS_UNKNOWN_FORMAT;
}

void cnse_bitmap_free(cnse_bitmap *bitmap) {
    free(bitmap->rgba);
    bitmap->rgba = NULL;
}

// MARK: Encoding

cnse_pixels_status cnse_encode_png(const uint8_t *rgba, uint32_t width, uint32_t height, cnse_encoded *out) {
    memset(out, 0, sizeof *out);
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = PNG_FORMAT_RGBA;
    png_alloc_size_t size = 0;
    // The first call measures, the second writes.
    if (!png_image_write_to_memory(&image, NULL, &size, 0, rgba, 0, NULL)) {
        cnse_pixels_message(out->message, "%s", image.message);
        return CNSE_PIXELS_FAILED;
    }
    out->bytes = malloc(size);
    if (out->bytes == NULL) {
        cnse_pixels_message(out->message, "out of memory for %zu bytes of PNG", (size_t)size);
        return CNSE_PIXELS_FAILED;
    }
    if (!png_image_write_to_memory(&image, out->bytes, &size, 0, rgba, 0, NULL)) {
        cnse_pixels_message(out->message, "%s", image.message);
        cnse_encoded_free(out);
        return CNSE_PIXELS_FAILED;
    }
    out->length = size;
    return CNSE_PIXELS_OK;
}

cnse_pixels_status cnse_encode_jpeg(const uint8_t *rgba, uint32_t width, uint32_t height, int quality, cnse_encoded *out) {
    memset(out, 0, sizeof *out);
    struct jpeg_compress_struct info;
    cnse_pixels_jpeg_error error;
    // jpeg_mem_dest grows the buffer itself; it is read after a longjmp, so volatile.
    unsigned char *volatile buffer = NULL;
    volatile unsigned long size = 0;
    info.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = cnse_pixels_jpeg_exit;
    error.manager.emit_message = cnse_pixels_jpeg_quiet;
    error.message = out->message;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&info);
        free(buffer);
        return CNSE_PIXELS_FAILED;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, (unsigned char **)&buffer, (unsigned long *)&size);
    info.image_width = width;
    info.image_height = height;
    info.input_components = 4;
    info.in_color_space = JCS_EXT_RGBA;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality < 1 ? 1 : (quality > 100 ? 100 : quality), TRUE);
    jpeg_start_compress(&info, TRUE);
    size_t stride = (size_t)width * 4;
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(rgba + (size_t)info.next_scanline * stride);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    out->bytes = buffer;
    out->length = size;
    return CNSE_PIXELS_OK;
}

void cnse_encoded_free(cnse_encoded *out) {
    free(out->bytes);
    out->bytes = NULL;
    out->length = 0;
}
