// cnse_png_image_data_check: the PNG checker's cheap path for the image data (the IDAT chunks and what follows).
// Why: inflating with zlib and unfiltering every row in libpng was most of a batch's CPU. Validation needs the
// data inflated and each row's filter type checked, not the rows unfiltered, and libdeflate inflates a whole
// stream about twice as fast as zlib does row by row. Why it is safe: it only ever vouches for a file it has
// checked completely (every chunk CRC, the zlib header, the deflate data and its Adler-32, the exact amount of
// data, every filter byte, nothing after the data but skipped metadata and IEND); anything else, damage
// included, sends the caller back to libpng's full decode, which then finds and words the damage as before.

#include "cnse_png_image_data.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

/// The filter types PNG defines (None, Sub, Up, Average, Paeth); libpng fails on any other filter byte.
#define CNSE_PNG_LAST_FILTER 4

/// Bytes reserved for libdeflate's decompressor state in the memory count (its struct is about 10 KB).
#define CNSE_PNG_DEFLATE_STATE ((uint64_t)16 * 1024)

static uint32_t cnse_png_read_u32(const unsigned char *bytes) {
    return ((uint32_t)bytes[0] << 24) | ((uint32_t)bytes[1] << 16) | ((uint32_t)bytes[2] << 8) | bytes[3];
}

/// Reads exactly `length` bytes; 0 on a short read or error (the full decode then says which).
static int cnse_png_read_exactly(FILE *file, void *buffer, size_t length) {
    return length == 0 || fread(buffer, 1, length, file) == length;
}

/// Reads a chunk's CRC and compares it with `crc`, computed over its type and data.
static int cnse_png_crc_matches(FILE *file, uint32_t crc) {
    unsigned char stored[4];
    return cnse_png_read_exactly(file, stored, 4) && cnse_png_read_u32(stored) == crc;
}

/// Reads and CRC-checks the data of a chunk that libpng is told to skip, without keeping it.
static int cnse_png_skip_chunk(FILE *file, const unsigned char type[4], uint32_t length) {
    unsigned char buffer[16384];
    uint32_t crc = libdeflate_crc32(0, type, 4);
    while (length > 0) {
        size_t part = length < sizeof(buffer) ? length : sizeof(buffer);
        if (!cnse_png_read_exactly(file, buffer, part)) {
            return 0;
        }
        crc = libdeflate_crc32(crc, buffer, part);
        length -= (uint32_t)part;
    }
    return cnse_png_crc_matches(file, crc);
}

/// Is `type` one of the metadata chunks libpng skips unread (CRC-checked only)? `skipped` is NUL-separated.
static int cnse_png_is_skipped(const unsigned char type[4], const unsigned char *skipped, int count) {
    for (int index = 0; index < count; index++) {
        if (memcmp(type, skipped + 5 * index, 4) == 0) {
            return 1;
        }
    }
    return 0;
}

/// Bytes of one row of `pixels` pixels, plus its filter byte.
static uint64_t cnse_png_row_bytes(uint64_t pixels, uint32_t bits_per_pixel) {
    return 1 + (pixels * bits_per_pixel + 7) / 8;
}

/// Checks the filter byte of each of `rows` rows of `row_bytes` bytes (filter byte included) at `data`.
static int cnse_png_filters_valid(const unsigned char *data, uint64_t rows, uint64_t row_bytes) {
    for (uint64_t row = 0; row < rows; row++) {
        if (data[row * row_bytes] > CNSE_PNG_LAST_FILTER) {
            return 0;
        }
    }
    return 1;
}

/// The inflated size of the image data: one pass, or Adam7's seven reduced images (a pass with no pixels has
/// no rows at all, not even filter bytes).
static uint64_t cnse_png_expected_size(const cnse_png_image_layout *layout) {
    if (!layout->interlaced) {
        return (uint64_t)layout->height * cnse_png_row_bytes(layout->width, layout->bits_per_pixel);
    }
    static const uint32_t x_start[7] = {0, 4, 0, 2, 0, 1, 0}, x_step[7] = {8, 8, 4, 4, 2, 2, 1};
    static const uint32_t y_start[7] = {0, 0, 4, 0, 2, 0, 1}, y_step[7] = {8, 8, 8, 4, 4, 2, 2};
    uint64_t total = 0;
    for (int pass = 0; pass < 7; pass++) {
        uint64_t columns = layout->width > x_start[pass] ? (layout->width - x_start[pass] + x_step[pass] - 1) / x_step[pass] : 0;
        uint64_t rows = layout->height > y_start[pass] ? (layout->height - y_start[pass] + y_step[pass] - 1) / y_step[pass] : 0;
        if (columns > 0 && rows > 0) {
            total += rows * cnse_png_row_bytes(columns, layout->bits_per_pixel);
        }
    }
    return total;
}

/// Whether every row's filter byte is valid, pass by pass as cnse_png_expected_size lays them out.
static int cnse_png_all_filters_valid(const unsigned char *data, const cnse_png_image_layout *layout) {
    if (!layout->interlaced) {
        return cnse_png_filters_valid(data, layout->height, cnse_png_row_bytes(layout->width, layout->bits_per_pixel));
    }
    static const uint32_t x_start[7] = {0, 4, 0, 2, 0, 1, 0}, x_step[7] = {8, 8, 4, 4, 2, 2, 1};
    static const uint32_t y_start[7] = {0, 0, 4, 0, 2, 0, 1}, y_step[7] = {8, 8, 8, 4, 4, 2, 2};
    for (int pass = 0; pass < 7; pass++) {
        uint64_t columns = layout->width > x_start[pass] ? (layout->width - x_start[pass] + x_step[pass] - 1) / x_step[pass] : 0;
        uint64_t rows = layout->height > y_start[pass] ? (layout->height - y_start[pass] + y_step[pass] - 1) / y_step[pass] : 0;
        if (columns == 0 || rows == 0) {
            continue;
        }
        uint64_t row_bytes = cnse_png_row_bytes(columns, layout->bits_per_pixel);
        if (!cnse_png_filters_valid(data, rows, row_bytes)) {
            return 0;
        }
        data += rows * row_bytes;
    }
    return 1;
}

/// Grows `*buffer` to hold `needed` bytes, within `budget`; 0 when that would go over it or malloc fails.
static int cnse_png_reserve(unsigned char **buffer, uint64_t *capacity, uint64_t needed, uint64_t budget) {
    if (needed <= *capacity) {
        return 1;
    }
    uint64_t grown = *capacity * 2 > needed ? *capacity * 2 : needed;
    if (grown > budget) {
        grown = needed;
    }
    if (grown > budget || grown > SIZE_MAX) {
        return 0;
    }
    unsigned char *larger = realloc(*buffer, (size_t)grown);
    if (larger == NULL) {
        return 0;
    }
    *buffer = larger;
    *capacity = grown;
    return 1;
}

int cnse_png_image_data_check(FILE *file, const cnse_png_image_layout *layout) {
    uint64_t expected = cnse_png_expected_size(layout);
    // The compressed data, the inflated data and libdeflate's state must fit what is left of the memory limit.
    if (layout->memory_left < CNSE_PNG_DEFLATE_STATE || expected > layout->memory_left - CNSE_PNG_DEFLATE_STATE) {
        return 0;
    }
    uint64_t budget = layout->memory_left - CNSE_PNG_DEFLATE_STATE - expected;
    // libpng has read the first IDAT chunk's length and type and stopped: read them again here.
    if (fseek(file, -8, SEEK_CUR) != 0) {
        return 0;
    }

    int clean = 0;
    unsigned char *compressed = NULL;
    unsigned char *inflated = NULL;
    struct libdeflate_decompressor *decompressor = NULL;
    uint64_t size = 0, capacity = 0;
    unsigned char header[8];
    // The IDAT chunks, in a row: their data is one zlib stream.
    for (;;) {
        if (!cnse_png_read_exactly(file, header, 8)) {
            goto done;
        }
        if (memcmp(header + 4, "IDAT", 4) != 0) {
            break;
        }
        uint32_t length = cnse_png_read_u32(header);
        // Empty or oversized IDAT chunks are libpng's to judge (its chunk length limit depends on the image).
        if (length == 0 || length > layout->chunk_max) {
            goto done;
        }
        if (!cnse_png_reserve(&compressed, &capacity, size + length, budget)) {
            goto done;
        }
        if (!cnse_png_read_exactly(file, compressed + size, length)) {
            goto done;
        }
        uint32_t crc = libdeflate_crc32(libdeflate_crc32(0, header + 4, 4), compressed + size, length);
        if (!cnse_png_crc_matches(file, crc)) {
            goto done;
        }
        size += length;
    }
    // The zlib header: deflate with a 32 KiB window and no preset dictionary (a smaller window makes zlib refuse
    // distances libdeflate would accept, so such streams go to libpng).
    if (size < 2 || compressed[0] != 0x78 || (compressed[1] & 0x20) != 0 || ((compressed[0] << 8) | compressed[1]) % 31 != 0) {
        goto done;
    }
    inflated = malloc(expected > 0 ? (size_t)expected : 1);
    decompressor = libdeflate_alloc_decompressor();
    if (inflated == NULL || decompressor == NULL) {
        goto done;
    }
    size_t used = 0, produced = 0;
    // Exactly `expected` bytes from exactly all of the data: too little, too much or trailing bytes go to libpng.
    if (libdeflate_zlib_decompress_ex(decompressor, compressed, (size_t)size, inflated, (size_t)expected, &used,
                                      &produced) != LIBDEFLATE_SUCCESS ||
        used != size || produced != expected || !cnse_png_all_filters_valid(inflated, layout)) {
        goto done;
    }
    // After the data: only the metadata chunks libpng skips, then IEND (empty, with its CRC). The chunk header
    // that ended the IDAT run is in `header`.
    for (;;) {
        uint32_t length = cnse_png_read_u32(header);
        if (memcmp(header + 4, "IEND", 4) == 0) {
            clean = length == 0 && cnse_png_crc_matches(file, libdeflate_crc32(0, header + 4, 4));
            goto done;
        }
        if (!cnse_png_is_skipped(header + 4, layout->skipped_chunks, layout->skipped_chunk_count) ||
            length > layout->chunk_max || !cnse_png_skip_chunk(file, header + 4, length) ||
            !cnse_png_read_exactly(file, header, 8)) {
            goto done;
        }
    }

done:
    libdeflate_free_decompressor(decompressor);
    free(inflated);
    free(compressed);
    return clean;
}
