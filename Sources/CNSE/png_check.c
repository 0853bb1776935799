// cnse_png_check: validates a PNG by decoding every row of every pass with libpng, in O(width) memory that every
// libpng allocation (through our allocator) and our row buffer count against limits->max_memory.
// Why in C: libpng reports errors by longjmp, which must never cross a Swift frame, so every setjmp lives here.
// Why so strict: iOS refuses a PNG whose chunks fail their CRC, so a CRC error in any chunk is fatal here too,
// whereas libpng by default only warns about (and drops) damaged ancillary chunks.

#include "CNSE.h"
#include "cnse_checkers.h"
#include "cnse_png_image_data.h"
#include "cnse_report.h"

#include <errno.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <png.h>

/// Largest ancillary chunk libpng accepts without a warning, and largest ICC profile it will inflate (iCCP).
/// Why: a few kilobytes of deflate can claim gigabytes (an "iCCP bomb"); real ICC profiles fit in 8 MB.
#define CNSE_PNG_CHUNK_MALLOC_MAX ((png_alloc_size_t)8 * 1024 * 1024)

/// How many ancillary chunks libpng keeps (text, sPLT, unknown); libpng's own default, set explicitly so a
/// differently configured libpng cannot let a file of a million small chunks fill memory.
#define CNSE_PNG_CHUNK_CACHE_MAX 1000

/// Metadata chunks that cannot change what the image looks like, which libpng is told to skip (still checking
/// their CRC). Why: libpng allocates each one's full claimed length before reading it (its "chunk data is too
/// large" check against CNSE_PNG_CHUNK_MALLOC_MAX is only a warning), and decompresses zTXt/iTXt, so skipping
/// them is the only way to spend no memory on a hostile 2 GB tEXt or a zTXt bomb. Each name is 4 bytes + NUL.
static const png_byte cnse_png_ignored_chunks[] = "tEXt\0zTXt\0iTXt\0sPLT\0eXIf\0pCAL\0sCAL";
#define CNSE_PNG_IGNORED_CHUNK_COUNT 7

/// libpng's per-dimension limit. Why so high: max_pixels is the policy, and libpng's default (1,000,000 per
/// side) would reject valid long, thin images that max_pixels allows. 2^31 - 1 is the PNG format's own limit.
#define CNSE_PNG_DIMENSION_MAX 0x7fffffffu

/// Bytes libpng may add to each of its two row buffers beyond the row itself: the filter byte, the width rounded
/// up to a multiple of 8 pixels (at most 7 pixels of 8 bytes) and 48 bytes of alignment (png_read_start_row).
#define CNSE_PNG_ROW_OVERHEAD 128

/// Everything the libpng callbacks need, handed over as libpng's error, I/O and memory pointer.
typedef struct {
    FILE *file;
    cnse_image_report *report;
    const cnse_image_limits *limits;
    /// Set by the read function, which has already written a more precise message than libpng's "read failed".
    int read_failed;
    /// errno of a failed read, so a disk error is told apart from a truncated file; 0 if none.
    int read_errno;
    /// Bytes held now by libpng (through cnse_png_malloc) and by our row buffer, against limits->max_memory.
    uint64_t allocated;
    /// Set when cnse_png_malloc refused a request for the memory limit, so libpng's "out of memory" error is
    /// reported as the limit it is.
    int over_memory;
} cnse_png_context;

/// Each allocation carries its size in a header this big, so the free function can count it back; a whole
/// max_align_t keeps the memory handed to libpng as aligned as malloc's.
#define CNSE_PNG_HEADER sizeof(max_align_t)

/// libpng's allocator: malloc, but refusing (NULL, which libpng turns into an error) past limits->max_memory.
static png_voidp cnse_png_malloc(png_structp png, png_alloc_size_t size) {
    cnse_png_context *context = png_get_mem_ptr(png);
    uint64_t limit = context->limits->max_memory;
    if (size > limit || context->allocated > limit - size) {
        if (!context->over_memory) {
            context->over_memory = 1;
            cnse_report_over_limit(context->report, context->allocated + size, limit);
        }
        return NULL;
    }
    if (size > SIZE_MAX - CNSE_PNG_HEADER) {
        return NULL;
    }
    unsigned char *block = malloc(CNSE_PNG_HEADER + size);
    if (block == NULL) {
        return NULL;
    }
    *(png_alloc_size_t *)(void *)block = size;
    context->allocated += size;
    return block + CNSE_PNG_HEADER;
}

static void cnse_png_free(png_structp png, png_voidp pointer) {
    if (pointer == NULL) {
        return;
    }
    cnse_png_context *context = png_get_mem_ptr(png);
    unsigned char *block = (unsigned char *)pointer - CNSE_PNG_HEADER;
    context->allocated -= *(png_alloc_size_t *)(void *)block;
    free(block);
}

static void cnse_png_error(png_structp png, png_const_charp message) {
    cnse_png_context *context = png_get_error_ptr(png);
    // The read function already wrote a precise message (truncation or errno); keep it.
    if (!context->read_failed) {
        cnse_report_set_message(context->report, "%s", message != NULL ? message : "libpng error");
    }
    png_longjmp(png, 1);
}

static void cnse_png_warning(png_structp png, png_const_charp message) {
    cnse_png_context *context = png_get_error_ptr(png);
    cnse_report_count_warning(context->report);
    cnse_report_set_message_if_empty(context->report, "%s", message != NULL ? message : "libpng warning");
}

static void cnse_png_read(png_structp png, png_bytep data, size_t length) {
    cnse_png_context *context = png_get_io_ptr(png);
    if (fread(data, 1, length, context->file) == length) {
        return;
    }
    context->read_failed = 1;
    if (ferror(context->file)) {
        context->read_errno = errno != 0 ? errno : EIO;
        cnse_report_set_errno(context->report, "read failed", context->read_errno);
    } else {
        cnse_report_set_message(context->report, "unexpected end of file: the PNG is truncated");
    }
    png_error(png, "read failed");
}

/// Everything between png_create_read_struct and png_destroy_read_struct: the only place that uses setjmp.
/// With `full` 0, the image data goes through cnse_png_image_data_check once libpng has read the header and every
/// chunk before it; with `full` 1 (or after CNSE_DECODE_IN_FULL) libpng decodes and unfilters every row.
static cnse_image_status cnse_png_decode(cnse_png_context *context, int full) {
    cnse_image_report *report = context->report;
    const cnse_image_limits *limits = context->limits;
    png_structp png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, context, cnse_png_error, cnse_png_warning,
                                               context, cnse_png_malloc, cnse_png_free);
    if (png == NULL) {
        cnse_report_set_message(report, "out of memory creating the PNG decoder");
        return context->over_memory ? CNSE_IMAGE_OVER_MEMORY_LIMIT : CNSE_IMAGE_IO_ERROR;
    }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        cnse_report_set_message(report, "out of memory creating the PNG decoder");
        return CNSE_IMAGE_IO_ERROR;
    }

    // Changed after setjmp and read after longjmp, hence volatile (C11 7.13.2.1).
    png_bytep volatile row = NULL;

    if (setjmp(png_jmpbuf(png)) != 0) {
        // Once IHDR has been read the size is known even if a later chunk fails; before that it reads as 0.
        report->width = png_get_image_width(png, info);
        report->height = png_get_image_height(png, info);
        free(row);
        png_destroy_read_struct(&png, &info, NULL);
        if (context->over_memory) {
            cnse_report_set_message(report, "the PNG needs more than %llu bytes of decoder memory (libpng asked for "
                                    "%llu in all)", (unsigned long long)report->limit,
                                    (unsigned long long)report->needed);
            return CNSE_IMAGE_OVER_MEMORY_LIMIT;
        }
        return context->read_errno != 0 ? CNSE_IMAGE_IO_ERROR : CNSE_IMAGE_CORRUPT;
    }

    png_set_read_fn(png, context, cnse_png_read);
    png_set_sig_bytes(png, 8);
    png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
    png_set_user_limits(png, CNSE_PNG_DIMENSION_MAX, CNSE_PNG_DIMENSION_MAX);
    png_set_chunk_malloc_max(png, CNSE_PNG_CHUNK_MALLOC_MAX < limits->max_memory ? CNSE_PNG_CHUNK_MALLOC_MAX
                                                                                 : (png_alloc_size_t)limits->max_memory);
    png_set_chunk_cache_max(png, CNSE_PNG_CHUNK_CACHE_MAX);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, cnse_png_ignored_chunks, CNSE_PNG_IGNORED_CHUNK_COUNT);

    png_read_info(png, info);

    uint32_t width = png_get_image_width(png, info);
    uint32_t height = png_get_image_height(png, info);
    report->width = width;
    report->height = height;
    report->frames = 1;
    uint64_t pixels = (uint64_t)width * (uint64_t)height;
    if (pixels > limits->max_pixels) {
        cnse_report_set_message(report, "%u x %u = %llu pixels exceeds the limit of %llu pixels", width, height,
                                (unsigned long long)pixels, (unsigned long long)limits->max_pixels);
        png_destroy_read_struct(&png, &info, NULL);
        return CNSE_IMAGE_TOO_MANY_PIXELS;
    }
    // Interlace passes add up to the image once, so a PNG's work is its pixel count.
    if (cnse_report_charge_work(report, limits, pixels)) {
        cnse_report_set_message(report, "decoding %llu pixels would exceed the pixel-work limit of %llu",
                                (unsigned long long)pixels, (unsigned long long)limits->max_pixel_work);
        png_destroy_read_struct(&png, &info, NULL);
        return CNSE_IMAGE_OVER_WORK_LIMIT;
    }

    // No colour transformations: validating needs every byte inflated and unfiltered, not converted.
    // Memory is O(width) but up to 8 bytes per pixel (16-bit RGBA), and libpng keeps two rows of its own
    // (allocated by png_read_update_info), so a long thin image can need gigabytes: checked here, before any.
    size_t row_bytes = png_get_rowbytes(png, info);
    uint64_t rows_needed = 3 * (uint64_t)row_bytes + 2 * CNSE_PNG_ROW_OVERHEAD;
    if (rows_needed > limits->max_memory || context->allocated > limits->max_memory - rows_needed) {
        cnse_report_over_limit(report, context->allocated + rows_needed, limits->max_memory);
        cnse_report_set_message(report, "the PNG needs %llu bytes of decoder memory (rows of %zu bytes: %u pixels "
                                "x %d bits, three rows held), over the limit of %llu bytes",
                                (unsigned long long)report->needed, row_bytes, width,
                                (int)png_get_bit_depth(png, info) * (int)png_get_channels(png, info),
                                (unsigned long long)limits->max_memory);
        png_destroy_read_struct(&png, &info, NULL);
        return CNSE_IMAGE_OVER_MEMORY_LIMIT;
    }
    // The cheap path, when libpng has found nothing to say so far and no palette index needs checking (libpng
    // warns about indices past the palette, which only unfiltered rows show).
    if (!full && report->warnings == 0 && !context->over_memory && png_get_color_type(png, info) != PNG_COLOR_TYPE_PALETTE) {
        cnse_png_image_layout layout = {
            .width = width, .height = height,
            .bits_per_pixel = (uint32_t)png_get_bit_depth(png, info) * (uint32_t)png_get_channels(png, info),
            .interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE,
            .chunk_max = CNSE_PNG_CHUNK_MALLOC_MAX < limits->max_memory ? CNSE_PNG_CHUNK_MALLOC_MAX : limits->max_memory,
            .memory_left = limits->max_memory - context->allocated,
            .skipped_chunks = cnse_png_ignored_chunks, .skipped_chunk_count = CNSE_PNG_IGNORED_CHUNK_COUNT,
        };
        int clean = cnse_png_image_data_check(context->file, &layout);
        png_destroy_read_struct(&png, &info, NULL);
        return clean ? CNSE_IMAGE_OK : CNSE_DECODE_IN_FULL;
    }
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    // Charged to the same count as libpng's buffers, so the limit covers all three rows.
    context->allocated += row_bytes;
    row = malloc(row_bytes > 0 ? row_bytes : 1);
    if (row == NULL) {
        cnse_report_set_message(report, "out of memory for one row of %zu bytes", row_bytes);
        png_destroy_read_struct(&png, &info, NULL);
        return CNSE_IMAGE_IO_ERROR;
    }
    // With interlace handling, each pass is read as `height` rows into the same buffer (libpng manual, "one
    // row at a time"); libpng skips the rows a pass does not contain.
    for (int pass = 0; pass < passes; pass++) {
        for (uint32_t y = 0; y < height; y++) {
            png_read_row(png, row, NULL);
        }
    }
    // Reads the chunks after the image data up to IEND, so their CRCs and a missing IEND are caught too.
    png_read_end(png, info);

    free(row);
    row = NULL;
    png_destroy_read_struct(&png, &info, NULL);
    // libpng only warns when an ancillary chunk (an ICC profile) cannot be allocated and skips its contents:
    // the image decoded, but not all of it was checked, so the limit is still what the caller hears about.
    if (context->over_memory) {
        cnse_report_set_message(report, "a chunk of the PNG needs more than the %llu bytes of decoder memory left "
                                "(%llu asked for in all)", (unsigned long long)report->limit,
                                (unsigned long long)report->needed);
        return CNSE_IMAGE_OVER_MEMORY_LIMIT;
    }
    return CNSE_IMAGE_OK;
}

cnse_image_status cnse_png_check(const char *path, const cnse_image_limits *limits, cnse_image_report *report) {
    return cnse_report_check_path(path, limits, report, cnse_png_check_stream_full, 0, "PNG");
}

cnse_image_status cnse_png_check_full(const char *path, const cnse_image_limits *limits, cnse_image_report *report) {
    return cnse_report_check_path(path, limits, report, cnse_png_check_stream_full, 1, "PNG");
}

cnse_image_status cnse_png_check_stream(FILE *file, const cnse_image_limits *limits, cnse_image_report *report) {
    return cnse_report_check_cheap_first(file, limits, report, cnse_png_check_stream_full, "PNG");
}

cnse_image_status cnse_png_check_stream_full(FILE *file, const cnse_image_limits *limits, cnse_image_report *report,
                                             int full) {
    cnse_report_reset(report);
    report->decoded_in_full = full != 0;
    png_byte signature[8];
    size_t count = fread(signature, 1, sizeof(signature), file);
    if (count != sizeof(signature) && ferror(file)) {
        cnse_report_set_errno(report, "read failed", errno != 0 ? errno : EIO);
        return CNSE_IMAGE_IO_ERROR;
    }
    if (count != sizeof(signature) || png_sig_cmp(signature, 0, sizeof(signature)) != 0) {
        cnse_report_set_message(report, "not a PNG file: the 8-byte PNG signature is missing");
        return CNSE_IMAGE_CORRUPT;
    }

    cnse_png_context context = {
        .file = file, .report = report, .limits = limits, .read_failed = 0, .read_errno = 0, .allocated = 0,
        .over_memory = 0,
    };
    return cnse_png_decode(&context, full);
}
