// cnse_gif_check: validates a GIF by reading it record by record with giflib's low-level API, each frame's LZW
// data through the cheap path (gif_image_data.c) and, if that cannot vouch for it, the whole file again with every
// row decoded by giflib (the reference: `full` 1, which the fuzz target and the tests compare with the cheap path).
// Why not DGifSlurp: it keeps the raster of every frame in memory, so a long animation costs frames x pixels;
// reading one record at a time keeps one row buffer and a few hundred bytes of bookkeeping.
// Why in C: giflib needs no setjmp, but a custom input function and giflib's bookkeeping are easier kept here.

#include "CNSE.h"
#include "cnse_checkers.h"
#include "cnse_gif_image_data.h"
#include "cnse_report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <gif_lib.h>

/// The cheap path follows giflib 5.2.1's LZW decoder step by step (gif_image_data.c); with any other giflib every
/// frame takes the full decode until the cheap path has been checked against that version's decoder.
#if GIFLIB_MAJOR == 5 && GIFLIB_MINOR == 2 && GIFLIB_RELEASE == 1
#define CNSE_GIF_CHEAP_PATH 1
#else
#define CNSE_GIF_CHEAP_PATH 0
#endif

/// State for the input function, reached through GifFileType.UserData.
typedef struct {
    FILE *file;
    /// errno of a failed read, so a disk error is told apart from a truncated file; 0 if none.
    int read_errno;
    /// The last byte giflib read: after DGifGetImageDesc, the frame's LZW minimum code size.
    unsigned last_byte;
} cnse_gif_context;

/// giflib input function over our own FILE: unlike DGifOpenFileName, it lets us see errno and ferror.
static int cnse_gif_read(GifFileType *gif, GifByteType *buffer, int length) {
    cnse_gif_context *context = gif->UserData;
    if (length <= 0) {
        return 0;
    }
    size_t count = fread(buffer, 1, (size_t)length, context->file);
    if (count < (size_t)length && ferror(context->file) && context->read_errno == 0) {
        context->read_errno = errno != 0 ? errno : EIO;
    }
    if (count > 0) {
        context->last_byte = buffer[count - 1];
    }
    return (int)count;
}

/// Writes giflib's words for `error` (or a fallback: some giflib paths fail without setting an error code).
static cnse_image_status cnse_gif_failure(const cnse_gif_context *context, cnse_image_report *report, int error,
                                          const char *fallback) {
    if (context->read_errno != 0) {
        cnse_report_set_errno(report, "read failed", context->read_errno);
        return CNSE_IMAGE_IO_ERROR;
    }
    const char *text = error != 0 ? GifErrorString(error) : NULL;
    if (text == NULL) {
        text = fallback;
    }
    if (feof(context->file)) {
        // giflib says "Failed to read from given file" for both; the end of the file is the useful fact.
        cnse_report_set_message(report, "unexpected end of file: the GIF is truncated (%s)", text);
    } else {
        cnse_report_set_message(report, "%s", text);
    }
    return CNSE_IMAGE_CORRUPT;
}

/// DGifGetImageDesc appends a SavedImage (plus a copy of any local colour map) to gif->SavedImages for every
/// frame, for DGifSlurp's benefit; we never use them, so drop them after each frame to keep memory flat.
/// Safe with giflib 5.2.1: only DGifGetImageDesc, DGifSlurp and GifFreeSavedImages read ImageCount to index
/// SavedImages, and GifFreeSavedImages sets SavedImages to NULL (it does not reset ImageCount, so we do).
static void cnse_gif_drop_saved_images(GifFileType *gif) {
    GifFreeSavedImages(gif);
    gif->SavedImages = NULL;
    gif->ImageCount = 0;
}

/// Walks the records after the screen descriptor; frames are counted in report->frames. With `full` 0 each frame's
/// data goes through the cheap path, and the answer is CNSE_DECODE_IN_FULL at the first it cannot vouch for.
static cnse_image_status cnse_gif_walk(GifFileType *gif, const cnse_gif_context *context,
                                       const cnse_image_limits *limits, cnse_image_report *report, int full) {
    GifPixelType *row = NULL;
    size_t row_capacity = 0;
    cnse_image_status status = CNSE_IMAGE_OK;

    for (;;) {
        GifRecordType record;
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) {
            status = cnse_gif_failure(context, report, gif->Error, "cannot read the next GIF record");
            break;
        }
        if (record == TERMINATE_RECORD_TYPE) {
            break;
        }
        if (record == EXTENSION_RECORD_TYPE) {
            int code = 0;
            GifByteType *block = NULL;
            if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) {
                status = cnse_gif_failure(context, report, gif->Error, "damaged GIF extension block");
                break;
            }
            while (block != NULL) {
                if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) {
                    break;
                }
            }
            if (block != NULL) {
                status = cnse_gif_failure(context, report, gif->Error, "damaged GIF extension block");
                break;
            }
            continue;
        }
        if (record != IMAGE_DESC_RECORD_TYPE) {
            // DGifGetRecordType already fails on unknown introducers; kept for giflib versions that do not.
            cnse_report_set_message(report, "unknown GIF record type");
            status = CNSE_IMAGE_CORRUPT;
            break;
        }

        // Even a 1 x 1 frame costs a descriptor, an LZW set-up and giflib's bookkeeping: a frame count bounds
        // what tiny frames cost, as pixel work bounds what large ones do.
        if (report->frames >= limits->max_frames) {
            cnse_report_over_limit(report, (uint64_t)report->frames + 1, limits->max_frames);
            cnse_report_set_message(report, "the GIF has more than %u frames", limits->max_frames);
            status = CNSE_IMAGE_OVER_FRAME_LIMIT;
            break;
        }
        if (DGifGetImageDesc(gif) == GIF_ERROR) {
            status = cnse_gif_failure(context, report, gif->Error, "damaged GIF image descriptor");
            break;
        }
        cnse_gif_drop_saved_images(gif);
        report->frames += 1;

        uint32_t width = (uint32_t)gif->Image.Width;
        uint32_t height = (uint32_t)gif->Image.Height;
        uint64_t pixels = (uint64_t)width * (uint64_t)height;
        if (pixels > limits->max_pixels) {
            cnse_report_set_message(report, "frame %u is %u x %u = %llu pixels, over the limit of %llu pixels",
                                    report->frames, width, height, (unsigned long long)pixels,
                                    (unsigned long long)limits->max_pixels);
            status = CNSE_IMAGE_TOO_MANY_PIXELS;
            break;
        }
        if (cnse_report_charge_work(report, limits, pixels)) {
            cnse_report_set_message(report, "frame %u (%u x %u) would bring the pixels decoded to %llu, over the "
                                    "pixel-work limit of %llu", report->frames, width, height,
                                    (unsigned long long)report->needed, (unsigned long long)limits->max_pixel_work);
            status = CNSE_IMAGE_OVER_WORK_LIMIT;
            break;
        }
        if (pixels == 0) {
            // giflib would read no LZW data for it and then misread that data as the next record.
            cnse_report_set_message(report, "frame %u has an empty size (%u x %u)", report->frames, width, height);
            status = CNSE_IMAGE_CORRUPT;
            break;
        }
        if (!full) {
            if (!CNSE_GIF_CHEAP_PATH || !cnse_gif_image_data_check(context->file, context->last_byte, pixels)) {
                status = CNSE_DECODE_IN_FULL;
                break;
            }
            continue;
        }
        if (width > row_capacity) {
            free(row);
            row = malloc(width);
            row_capacity = row != NULL ? width : 0;
            if (row == NULL) {
                cnse_report_set_message(report, "out of memory for one row of %u bytes", width);
                status = CNSE_IMAGE_IO_ERROR;
                break;
            }
        }
        // Interlaced frames deliver their rows in pass order; for validation the order does not matter.
        int failed = 0;
        for (uint32_t y = 0; y < height; y++) {
            if (DGifGetLine(gif, row, (int)width) == GIF_ERROR) {
                failed = 1;
                break;
            }
        }
        if (failed) {
            status = cnse_gif_failure(context, report, gif->Error, "damaged or truncated GIF image data");
            break;
        }
    }

    free(row);
    if (status == CNSE_IMAGE_OK && report->frames == 0) {
        cnse_report_set_message(report, "no image in the file");
        status = CNSE_IMAGE_CORRUPT;
    }
    return status;
}

cnse_image_status cnse_gif_check(const char *path, const cnse_image_limits *limits, cnse_image_report *report) {
    return cnse_report_check_path(path, limits, report, cnse_gif_check_stream_full, 0, "GIF");
}

cnse_image_status cnse_gif_check_full(const char *path, const cnse_image_limits *limits, cnse_image_report *report) {
    return cnse_report_check_path(path, limits, report, cnse_gif_check_stream_full, 1, "GIF");
}

cnse_image_status cnse_gif_check_stream(FILE *file, const cnse_image_limits *limits, cnse_image_report *report) {
    return cnse_report_check_cheap_first(file, limits, report, cnse_gif_check_stream_full, "GIF");
}

cnse_image_status cnse_gif_check_stream_full(FILE *file, const cnse_image_limits *limits, cnse_image_report *report,
                                             int full) {
    cnse_report_reset(report);
    report->decoded_in_full = full != 0;
    cnse_gif_context context = {.file = file, .read_errno = 0, .last_byte = 0};
    int error = 0;
    // Reads the signature and the logical screen descriptor (and global colour map).
    GifFileType *gif = DGifOpen(&context, cnse_gif_read, &error);
    if (gif == NULL) {
        return cnse_gif_failure(&context, report, error, "not a GIF file");
    }

    report->width = (uint32_t)gif->SWidth;
    report->height = (uint32_t)gif->SHeight;
    uint64_t pixels = (uint64_t)report->width * (uint64_t)report->height;
    cnse_image_status status;
    if (pixels > limits->max_pixels) {
        cnse_report_set_message(report, "%u x %u = %llu pixels exceeds the limit of %llu pixels", report->width,
                                report->height, (unsigned long long)pixels, (unsigned long long)limits->max_pixels);
        status = CNSE_IMAGE_TOO_MANY_PIXELS;
    } else {
        status = cnse_gif_walk(gif, &context, limits, report, full);
    }

    // DGifOpen leaves the FILE to us: DGifCloseFile frees giflib's state and closes nothing of ours.
    DGifCloseFile(gif, &error);
    return status;
}
