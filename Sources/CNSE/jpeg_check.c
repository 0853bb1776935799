// cnse_jpeg_check: validates a JPEG by decoding every scanline with libjpeg(-turbo) into one row buffer.
// Why in C: libjpeg's default error_exit calls exit() and any replacement must longjmp, which must never cross
// a Swift frame, so the error manager and every setjmp live here.
// Why warnings are only counted: libjpeg recovers from damaged entropy data and truncation (it pads with grey);
// whether that is acceptable is the caller's policy, so the report carries the count and the first warning.

#include "CNSE.h"
#include "cnse_report.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

/// Most scans accepted in one file. Why: each scan of a progressive JPEG makes libjpeg walk the whole
/// coefficient buffer again, so a small file of thousands of tiny scans costs minutes of CPU. Encoders write
/// about 10 (libjpeg's simple progression: 6 grey, 10 colour); libjpeg-turbo's own TurboJPEG limit is 500.
#define CNSE_JPEG_MAX_SCANS 500

/// Fixed allowance on top of the pixel-derived memory limit, for Huffman tables, sample rows and the like.
#define CNSE_JPEG_MEMORY_SLACK ((uint64_t)64 * 1024 * 1024)

/// libjpeg's error manager extended with our jump target, as libjpeg's example.c does.
typedef struct {
    struct jpeg_error_mgr base;  // first, so a j_common_ptr's err converts to this type
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    cnse_image_report *report;
} cnse_jpeg_error;

static void cnse_jpeg_error_exit(j_common_ptr cinfo) {
    cnse_jpeg_error *error = (cnse_jpeg_error *)cinfo->err;
    if (cinfo->err->msg_code == JERR_NO_BACKING_STORE) {
        // libjpeg's words would be "Backing store not supported": say what actually ran out.
        cnse_report_set_message(error->report,
                                "the JPEG needs more than %ld bytes for its whole-image coefficient buffer",
                                cinfo->mem->max_memory_to_use);
    } else {
        char text[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, text);
        cnse_report_set_message(error->report, "%s", text);
    }
    longjmp(error->jump, 1);
}

static void cnse_jpeg_emit_message(j_common_ptr cinfo, int level) {
    // Levels 0 and up are trace messages; -1 is a warning ("Corrupt JPEG data: ...", "Premature end of JPEG file").
    if (level != -1) {
        return;
    }
    cnse_jpeg_error *error = (cnse_jpeg_error *)cinfo->err;
    cinfo->err->num_warnings++;
    cnse_report_count_warning(error->report);
    if (error->report->message[0] == '\0') {
        char text[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, text);
        cnse_report_set_message(error->report, "%s", text);
    }
}

static void cnse_jpeg_progress(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) {
        return;
    }
    j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
    if (decompress->input_scan_number > CNSE_JPEG_MAX_SCANS) {
        cnse_jpeg_error *error = (cnse_jpeg_error *)cinfo->err;
        cnse_report_set_message(error->report, "the JPEG has more than %d scans", CNSE_JPEG_MAX_SCANS);
        longjmp(error->jump, 1);
    }
}

/// Everything between jpeg_create_decompress and jpeg_destroy_decompress: the only place that uses setjmp.
static cnse_image_status cnse_jpeg_decode(FILE *file, uint64_t max_pixels, cnse_image_report *report) {
    struct jpeg_decompress_struct cinfo;
    // Zeroed so the size reads as 0 after a failure even before jpeg_create_decompress has cleared it.
    memset(&cinfo, 0, sizeof(cinfo));
    cnse_jpeg_error error;
    cinfo.err = jpeg_std_error(&error.base);
    error.base.error_exit = cnse_jpeg_error_exit;
    error.base.emit_message = cnse_jpeg_emit_message;
    error.report = report;

    // Changed after setjmp and read after longjmp, hence volatile (C11 7.13.2.1).
    JSAMPROW volatile row = NULL;

    if (setjmp(error.jump) != 0) {
        // Once the frame header has been read the size is known even if a later segment fails.
        report->width = cinfo.image_width;
        report->height = cinfo.image_height;
        free(row);
        jpeg_destroy_decompress(&cinfo);
        return CNSE_IMAGE_CORRUPT;
    }

    jpeg_create_decompress(&cinfo);
    error.progress.progress_monitor = cnse_jpeg_progress;
    cinfo.progress = &error.progress;
    jpeg_stdio_src(&cinfo, file);
    jpeg_read_header(&cinfo, TRUE);

    report->width = cinfo.image_width;
    report->height = cinfo.image_height;
    report->frames = 1;
    uint64_t pixels = (uint64_t)cinfo.image_width * (uint64_t)cinfo.image_height;
    if (pixels > max_pixels) {
        cnse_report_set_message(report, "%u x %u = %llu pixels exceeds the limit of %llu pixels",
                                cinfo.image_width, cinfo.image_height, (unsigned long long)pixels,
                                (unsigned long long)max_pixels);
        jpeg_destroy_decompress(&cinfo);
        return CNSE_IMAGE_TOO_MANY_PIXELS;
    }

    // Progressive (and multi-scan sequential) JPEGs are NOT O(width): libjpeg must keep a whole-image buffer of
    // DCT coefficients (2 bytes per coefficient, 64 per 8x8 block per component, so up to about 2 bytes per
    // pixel per component) because every scan refines all of the image. max_memory_to_use bounds that buffer
    // by what an image of max_pixels legitimately needs (4 components, CMYK) so odd sampling factors or extra
    // components cannot inflate it; past it libjpeg-turbo fails with JERR_NO_BACKING_STORE (reported as such).
    uint64_t memory_limit = max_pixels > (UINT64_MAX - CNSE_JPEG_MEMORY_SLACK) / 8
                                ? UINT64_MAX
                                : max_pixels * 8 + CNSE_JPEG_MEMORY_SLACK;
    cinfo.mem->max_memory_to_use = memory_limit > (uint64_t)LONG_MAX ? LONG_MAX : (long)memory_limit;

    jpeg_start_decompress(&cinfo);

    size_t row_bytes = (size_t)cinfo.output_width * (size_t)cinfo.output_components;
    row = malloc(row_bytes > 0 ? row_bytes : 1);
    if (row == NULL) {
        cnse_report_set_message(report, "out of memory for one row of %zu bytes", row_bytes);
        jpeg_destroy_decompress(&cinfo);
        return CNSE_IMAGE_IO_ERROR;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW rows[1] = {row};
        // With a stdio source libjpeg never suspends, so 0 rows can only mean a broken decoder state.
        if (jpeg_read_scanlines(&cinfo, rows, 1) != 1) {
            cnse_report_set_message(report, "the decoder stopped at scanline %u of %u", cinfo.output_scanline,
                                    cinfo.output_height);
            free(row);
            jpeg_destroy_decompress(&cinfo);
            return CNSE_IMAGE_CORRUPT;
        }
    }
    // Reads on to the EOI marker, so damage after the last scanline is reported too.
    jpeg_finish_decompress(&cinfo);

    free(row);
    row = NULL;
    jpeg_destroy_decompress(&cinfo);
    return CNSE_IMAGE_OK;
}

cnse_image_status cnse_jpeg_check(const char *path, uint64_t max_pixels, cnse_image_report *report) {
    cnse_image_report scratch;
    FILE *file = cnse_report_open(path, &report, &scratch);
    if (file == NULL) {
        return CNSE_IMAGE_IO_ERROR;
    }
    cnse_image_status status = cnse_jpeg_decode(file, max_pixels, report);
    // libjpeg's stdio source treats a failed read as the end of the file; a disk error is not a damaged image.
    if (ferror(file)) {
        cnse_report_set_errno(report, "read failed", errno != 0 ? errno : EIO);
        status = CNSE_IMAGE_IO_ERROR;
    }
    fclose(file);
    return status;
}
