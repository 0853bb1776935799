// cnse_jpeg_check: validates a JPEG by decoding every scanline with libjpeg(-turbo) into one row buffer.
// Why in C: libjpeg's default error_exit calls exit() and any replacement must longjmp, which must never cross
// a Swift frame, so the error manager and every setjmp live here.
// Why warnings are only counted: libjpeg recovers from damaged entropy data and truncation (it pads with grey);
// whether that is acceptable is the caller's policy, so the report carries the count and the first warning.

#include "CNSE.h"
#include "cnse_checkers.h"
#include "cnse_report.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

/// Fixed allowance for what libjpeg allocates whatever the image size: Huffman and quantisation tables, the
/// colour-conversion and range-limit tables, the memory manager's pools (each rounded up to its chunk size).
#define CNSE_JPEG_FIXED_MEMORY ((uint64_t)1024 * 1024)

/// libjpeg's error manager extended with our jump target, as libjpeg's example.c does.
typedef struct {
    struct jpeg_error_mgr base;  // first, so a j_common_ptr's err converts to this type
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    cnse_image_report *report;
    const cnse_image_limits *limits;
    /// What the up-front estimate said the image needs, for a libjpeg memory failure after all.
    uint64_t memory_needed;
    /// Scans already counted against the scan and work limits.
    uint32_t scans_charged;
    /// The status to return after the jump: CORRUPT unless a limit stopped the decoder.
    cnse_image_status status;
} cnse_jpeg_error;

static void cnse_jpeg_error_exit(j_common_ptr cinfo) {
    cnse_jpeg_error *error = (cnse_jpeg_error *)cinfo->err;
    if (cinfo->err->msg_code == JERR_NO_BACKING_STORE) {
        // libjpeg's words would be "Backing store not supported": its max_memory_to_use (our limit) ran out
        // for a whole-image buffer that the up-front estimate missed.
        uint64_t needed = error->memory_needed > error->limits->max_memory ? error->memory_needed
                                                                             : error->limits->max_memory + 1;
        cnse_report_over_limit(error->report, needed, error->limits->max_memory);
        cnse_report_set_message(error->report,
                                "the JPEG needs more than %llu bytes of decoder memory for its whole-image buffers",
                                (unsigned long long)error->limits->max_memory);
        error->status = CNSE_IMAGE_OVER_MEMORY_LIMIT;
    } else {
        char text[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, text);
        cnse_report_set_message(error->report, "%s", text);
        error->status = CNSE_IMAGE_CORRUPT;
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

/// libjpeg calls this before each step of input (every iMCU row, every marker) and each output call, so a new
/// scan is seen here before any of its data is decoded: that is where the scan and work limits are checked.
/// Why per scan: each scan of a progressive or multi-scan JPEG walks the whole coefficient buffer again, so a
/// small file of hundreds of scans costs a whole image of work per scan.
static void cnse_jpeg_progress(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) {
        return;
    }
    j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
    cnse_jpeg_error *error = (cnse_jpeg_error *)cinfo->err;
    cnse_image_report *report = error->report;
    const cnse_image_limits *limits = error->limits;
    uint64_t pixels = (uint64_t)decompress->image_width * (uint64_t)decompress->image_height;
    while (decompress->input_scan_number > 0 && error->scans_charged < (uint32_t)decompress->input_scan_number) {
        uint32_t scan = error->scans_charged + 1;
        if (scan > limits->max_scans) {
            cnse_report_over_limit(report, scan, limits->max_scans);
            cnse_report_set_message(report, "the JPEG has more than %u scans", limits->max_scans);
            error->status = CNSE_IMAGE_OVER_SCAN_LIMIT;
            longjmp(error->jump, 1);
        }
        if (cnse_report_charge_work(report, limits, pixels)) {
            cnse_report_set_message(report, "scan %u would bring the pixels decoded to %llu (%llu per scan), over "
                                    "the pixel-work limit of %llu", scan, (unsigned long long)report->needed,
                                    (unsigned long long)pixels, (unsigned long long)limits->max_pixel_work);
            error->status = CNSE_IMAGE_OVER_WORK_LIMIT;
            longjmp(error->jump, 1);
        }
        error->scans_charged = scan;
        report->scans = scan;
    }
}

/// Bytes our source manager reads at a time. Why not jpeg_stdio_src: its 4 KiB buffer is below what libjpeg-turbo's
/// fast Huffman decoder wants on hand before an MCU (512 bytes per block, six blocks for 4:2:0 colour), so most
/// MCUs took the slow decoder. Same bytes, same decoder, same end-of-file behaviour: only the reads are larger.
#define CNSE_JPEG_INPUT_BUFFER 65536

/// A stdio source with a larger buffer; libjpeg allocates it in its permanent pool (within the fixed allowance).
typedef struct {
    struct jpeg_source_mgr base;  // first, so cinfo->src converts to this type
    FILE *file;
    JOCTET *buffer;
    boolean start_of_file;
} cnse_jpeg_source;

static void cnse_jpeg_init_source(j_decompress_ptr cinfo) {
    ((cnse_jpeg_source *)cinfo->src)->start_of_file = TRUE;
}

/// As libjpeg's stdio source does: an empty file is an error; at the end of a file, a warning ("Premature end of
/// JPEG file") and a fake EOI marker, so the decoder finishes with what it has.
static boolean cnse_jpeg_fill_input_buffer(j_decompress_ptr cinfo) {
    cnse_jpeg_source *source = (cnse_jpeg_source *)cinfo->src;
    size_t count = fread(source->buffer, 1, CNSE_JPEG_INPUT_BUFFER, source->file);
    if (count == 0) {
        if (source->start_of_file) {
            ERREXIT(cinfo, JERR_INPUT_EMPTY);
        }
        WARNMS(cinfo, JWRN_JPEG_EOF);
        source->buffer[0] = (JOCTET)0xFF;
        source->buffer[1] = (JOCTET)JPEG_EOI;
        count = 2;
    }
    source->base.next_input_byte = source->buffer;
    source->base.bytes_in_buffer = count;
    source->start_of_file = FALSE;
    return TRUE;
}

static void cnse_jpeg_skip_input_data(j_decompress_ptr cinfo, long count) {
    if (count <= 0) {
        return;
    }
    struct jpeg_source_mgr *source = cinfo->src;
    while ((size_t)count > source->bytes_in_buffer) {
        count -= (long)source->bytes_in_buffer;
        (void)(*source->fill_input_buffer)(cinfo);
    }
    source->next_input_byte += (size_t)count;
    source->bytes_in_buffer -= (size_t)count;
}

static void cnse_jpeg_term_source(j_decompress_ptr cinfo) {
    (void)cinfo;
}

static void cnse_jpeg_source_from(j_decompress_ptr cinfo, FILE *file) {
    cnse_jpeg_source *source = (cnse_jpeg_source *)(*cinfo->mem->alloc_small)((j_common_ptr)cinfo, JPOOL_PERMANENT,
                                                                              sizeof(cnse_jpeg_source));
    source->buffer = (JOCTET *)(*cinfo->mem->alloc_small)((j_common_ptr)cinfo, JPOOL_PERMANENT, CNSE_JPEG_INPUT_BUFFER);
    source->file = file;
    source->base.init_source = cnse_jpeg_init_source;
    source->base.fill_input_buffer = cnse_jpeg_fill_input_buffer;
    source->base.skip_input_data = cnse_jpeg_skip_input_data;
    source->base.resync_to_restart = jpeg_resync_to_restart;
    source->base.term_source = cnse_jpeg_term_source;
    source->base.bytes_in_buffer = 0;
    source->base.next_input_byte = NULL;
    cinfo->src = &source->base;
}

/// Adds without wrapping: the estimate only ever needs to say "more than the limit".
static uint64_t cnse_jpeg_add(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t cnse_jpeg_round_up(uint64_t value, uint64_t multiple) {
    return multiple == 0 ? value : (value + multiple - 1) / multiple * multiple;
}

/// What libjpeg will allocate to decode this image, from the header alone (after jpeg_calc_output_dimensions).
/// `coefficients` receives the whole-image coefficient buffer part: progressive and multi-scan sequential
/// files (non-interleaved baseline included) need every DCT block of every component at once, 64 coefficients
/// of 2 bytes each, because later scans refine or add components to blocks an earlier scan decoded. That is what
/// libjpeg-turbo's jdcoefct.c requests: blocks rounded up to whole MCUs, per component.
/// The rest is O(width): per component a band of v_samp x 8 rows of samples (twice, for the context rows of
/// fancy upsampling), the upsampler's rows at output width, and output rows; generous rather than exact.
static uint64_t cnse_jpeg_memory_needed(j_decompress_ptr cinfo, uint64_t *coefficients) {
    uint64_t coefficient_bytes = 0;
    uint64_t band_bytes = 0;
    int multiple_scans = jpeg_has_multiple_scans(cinfo);
    for (int c = 0; c < cinfo->num_components; c++) {
        const jpeg_component_info *component = &cinfo->comp_info[c];
        uint64_t blocks_wide = cnse_jpeg_round_up(component->width_in_blocks, (uint64_t)component->h_samp_factor);
        uint64_t blocks_high = cnse_jpeg_round_up(component->height_in_blocks, (uint64_t)component->v_samp_factor);
        if (multiple_scans) {
            coefficient_bytes = cnse_jpeg_add(coefficient_bytes, blocks_wide * blocks_high * sizeof(JBLOCK));
        }
        uint64_t band_rows = (uint64_t)component->v_samp_factor * DCTSIZE * 2;
        band_bytes = cnse_jpeg_add(band_bytes, blocks_wide * DCTSIZE * band_rows);
        // The upsampler's output rows for this component, at full output width.
        band_bytes = cnse_jpeg_add(band_bytes, cnse_jpeg_round_up(cinfo->output_width, (uint64_t)cinfo->max_h_samp_factor) *
                                                   (uint64_t)cinfo->max_v_samp_factor * 2);
    }
    // The colour converter's and our own output rows.
    band_bytes = cnse_jpeg_add(band_bytes, (uint64_t)cinfo->output_width * (uint64_t)cinfo->out_color_components * 2);
    *coefficients = coefficient_bytes;
    return cnse_jpeg_add(cnse_jpeg_add(coefficient_bytes, band_bytes), CNSE_JPEG_FIXED_MEMORY);
}

/// Everything between jpeg_create_decompress and jpeg_destroy_decompress: the only place that uses setjmp.
/// With `full` 0 the image is decoded at 1/8 scale: libjpeg still reads every marker and decodes every Huffman
/// (or arithmetic) code of every block of every scan, which is where it finds damage, but each block's inverse
/// DCT is its DC term alone and upsampling and colour conversion touch 1/64 of the pixels. The limits are
/// judged at full scale either way.
static cnse_image_status cnse_jpeg_decode(FILE *file, const cnse_image_limits *limits, cnse_image_report *report,
                                          int full) {
    struct jpeg_decompress_struct cinfo;
    // Zeroed so the size reads as 0 after a failure even before jpeg_create_decompress has cleared it.
    memset(&cinfo, 0, sizeof(cinfo));
    cnse_jpeg_error error;
    cinfo.err = jpeg_std_error(&error.base);
    error.base.error_exit = cnse_jpeg_error_exit;
    error.base.emit_message = cnse_jpeg_emit_message;
    error.report = report;
    error.limits = limits;
    error.memory_needed = 0;
    error.scans_charged = 0;
    error.status = CNSE_IMAGE_CORRUPT;

    // Changed after setjmp and read after longjmp, hence volatile (C11 7.13.2.1).
    JSAMPROW volatile row = NULL;
    // libjpeg changes cinfo after setjmp too; reading it through a volatile pointer stops the optimiser from
    // reusing the zeros of the memset above (clang -O2 did, reporting 0 x 0 after a jump).
    struct jpeg_decompress_struct *volatile header = &cinfo;

    if (setjmp(error.jump) != 0) {
        // Once the frame header has been read the size is known even if a later segment fails.
        report->width = header->image_width;
        report->height = header->image_height;
        free(row);
        jpeg_destroy_decompress(&cinfo);
        return error.status;
    }

    jpeg_create_decompress(&cinfo);
    error.progress.progress_monitor = cnse_jpeg_progress;
    cinfo.progress = &error.progress;
    // A backstop for the estimate below: libjpeg refuses whole-image buffers that would take its total past
    // this (with JERR_NO_BACKING_STORE, reported as the memory limit).
    cinfo.mem->max_memory_to_use = limits->max_memory > (uint64_t)LONG_MAX ? LONG_MAX : (long)limits->max_memory;
    cnse_jpeg_source_from(&cinfo, file);
    jpeg_read_header(&cinfo, TRUE);

    report->width = cinfo.image_width;
    report->height = cinfo.image_height;
    report->frames = 1;
    uint64_t pixels = (uint64_t)cinfo.image_width * (uint64_t)cinfo.image_height;
    if (pixels > limits->max_pixels) {
        cnse_report_set_message(report, "%u x %u = %llu pixels exceeds the limit of %llu pixels",
                                cinfo.image_width, cinfo.image_height, (unsigned long long)pixels,
                                (unsigned long long)limits->max_pixels);
        jpeg_destroy_decompress(&cinfo);
        return CNSE_IMAGE_TOO_MANY_PIXELS;
    }

    // Refused here, before jpeg_start_decompress allocates anything that depends on the image size.
    jpeg_calc_output_dimensions(&cinfo);
    uint64_t coefficients = 0;
    error.memory_needed = cnse_jpeg_memory_needed(&cinfo, &coefficients);
    if (error.memory_needed > limits->max_memory) {
        cnse_report_over_limit(report, error.memory_needed, limits->max_memory);
        if (coefficients > 0) {
            cnse_report_set_message(report, "the %s JPEG needs %llu bytes of decoder memory (%llu for its whole-image "
                                    "coefficient buffer: %d components, %s), over the limit of %llu bytes",
                                    cinfo.progressive_mode ? "progressive" : "multi-scan",
                                    (unsigned long long)error.memory_needed, (unsigned long long)coefficients,
                                    cinfo.num_components,
                                    cinfo.progressive_mode ? "every scan refines the whole image"
                                                           : "one scan per component",
                                    (unsigned long long)limits->max_memory);
        } else {
            cnse_report_set_message(report, "the JPEG needs %llu bytes of decoder memory for rows %u pixels wide, "
                                    "over the limit of %llu bytes", (unsigned long long)error.memory_needed,
                                    cinfo.output_width, (unsigned long long)limits->max_memory);
        }
        jpeg_destroy_decompress(&cinfo);
        return CNSE_IMAGE_OVER_MEMORY_LIMIT;
    }

    if (!full) {
        cinfo.scale_num = 1;
        cinfo.scale_denom = 8;
        cinfo.do_fancy_upsampling = FALSE;
    }
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

cnse_image_status cnse_jpeg_check(const char *path, const cnse_image_limits *limits, cnse_image_report *report) {
    return cnse_report_check_path(path, limits, report, cnse_jpeg_check_stream_full, 0, "JPEG");
}

cnse_image_status cnse_jpeg_check_full(const char *path, const cnse_image_limits *limits, cnse_image_report *report) {
    return cnse_report_check_path(path, limits, report, cnse_jpeg_check_stream_full, 1, "JPEG");
}

cnse_image_status cnse_jpeg_check_stream(FILE *file, const cnse_image_limits *limits, cnse_image_report *report) {
    return cnse_report_check_cheap_first(file, limits, report, cnse_jpeg_check_stream_full, "JPEG");
}

cnse_image_status cnse_jpeg_check_stream_full(FILE *file, const cnse_image_limits *limits, cnse_image_report *report,
                                              int full) {
    cnse_report_reset(report);
    report->decoded_in_full = full != 0;
    cnse_image_status status = cnse_jpeg_decode(file, limits, report, full);
    // libjpeg's stdio source treats a failed read as the end of the file; a disk error is not a damaged image.
    if (ferror(file)) {
        cnse_report_set_errno(report, "read failed", errno != 0 ? errno : EIO);
        status = CNSE_IMAGE_IO_ERROR;
    }
    return status;
}
