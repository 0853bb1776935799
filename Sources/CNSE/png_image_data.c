// cnse_png_image_data_check: the PNG checker's cheap path for the image data (the IDAT chunks and what follows).
// Why: inflating with zlib and unfiltering every row in libpng was most of a batch's CPU. Validation needs the
// data inflated and each row's filter type checked, not the rows unfiltered, and libdeflate inflates a whole
// stream about twice as fast as zlib does row by row. Why it is safe: it only ever vouches for a file it has
// checked completely (every chunk CRC, the zlib header, the deflate data and its Adler-32, the exact amount of
// data, every filter byte, nothing after the data but skipped metadata and IEND); anything else, damage
// included, sends the caller back to libpng's full decode, which then finds and words the damage as before.

#include "cnse_png_image_data.h"

#include <libdeflate.h>
#include <pthread.h>
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

// Buffers kept from one image to the next. A buffer this size is a mapping of its own (nse sets malloc's mmap
// threshold to 128 KiB), so a fresh one per image made the kernel fault in and zero every page of it: 109,000 minor
// faults and about 7% of the CPU of a batch over nse-bench's unique corpus, 13,000 faults now. At most
// CNSE_PNG_POOL_SLOTS buffers (a compressed and an inflated one for each of two decodes at once) of
// CNSE_PNG_POOL_BYTES in all are kept, so the memory kept between images stays bounded.
#define CNSE_PNG_POOL_SLOTS 4
#define CNSE_PNG_POOL_BYTES ((size_t)48 * 1024 * 1024)

typedef struct {
    unsigned char *data;
    size_t capacity;
} cnse_png_buffer;

static pthread_mutex_t cnse_png_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static cnse_png_buffer cnse_png_pool[CNSE_PNG_POOL_SLOTS];
static size_t cnse_png_pool_kept;

/// A kept buffer: the smallest that holds `wanted` bytes, else the largest (to be grown); empty if none is kept.
static cnse_png_buffer cnse_png_buffer_take(size_t wanted) {
    cnse_png_buffer taken = {NULL, 0};
    pthread_mutex_lock(&cnse_png_pool_lock);
    int best = -1;
    for (int slot = 0; slot < CNSE_PNG_POOL_SLOTS; slot++) {
        size_t capacity = cnse_png_pool[slot].capacity;
        if (cnse_png_pool[slot].data == NULL) {
            continue;
        }
        if (best < 0) {
            best = slot;
            continue;
        }
        size_t current = cnse_png_pool[best].capacity;
        int fits = capacity >= wanted, best_fits = current >= wanted;
        if ((fits && (!best_fits || capacity < current)) || (!fits && !best_fits && capacity > current)) {
            best = slot;
        }
    }
    if (best >= 0) {
        taken = cnse_png_pool[best];
        cnse_png_pool[best] = (cnse_png_buffer){NULL, 0};
        cnse_png_pool_kept -= taken.capacity;
    }
    pthread_mutex_unlock(&cnse_png_pool_lock);
    return taken;
}

/// Keeps `buffer` for the next image if a slot and the byte allowance are free; frees it otherwise.
static void cnse_png_buffer_give(cnse_png_buffer buffer) {
    if (buffer.data == NULL) {
        return;
    }
    pthread_mutex_lock(&cnse_png_pool_lock);
    for (int slot = 0; slot < CNSE_PNG_POOL_SLOTS; slot++) {
        if (cnse_png_pool[slot].data == NULL && buffer.capacity <= CNSE_PNG_POOL_BYTES - cnse_png_pool_kept) {
            cnse_png_pool[slot] = buffer;
            cnse_png_pool_kept += buffer.capacity;
            buffer.data = NULL;
            break;
        }
    }
    pthread_mutex_unlock(&cnse_png_pool_lock);
    free(buffer.data);
}

/// Grows `*buffer` to hold `needed` bytes, within `budget`; 0 when that would go over it or malloc fails.
static int cnse_png_reserve(cnse_png_buffer *buffer, uint64_t needed, uint64_t budget) {
    if (needed <= buffer->capacity) {
        return 1;
    }
    uint64_t grown = buffer->capacity * 2 > needed ? buffer->capacity * 2 : needed;
    if (grown > budget) {
        grown = needed;
    }
    if (grown > budget || grown > SIZE_MAX) {
        return 0;
    }
    unsigned char *larger = realloc(buffer->data, (size_t)grown);
    if (larger == NULL) {
        return 0;
    }
    buffer->data = larger;
    buffer->capacity = (size_t)grown;
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
    // The compressed data takes the smallest kept buffer (it is usually a fraction of the inflated size) and
    // grows it as needed; the inflated data takes one that fits, if any is kept.
    cnse_png_buffer compressed = cnse_png_buffer_take(0);
    cnse_png_buffer inflated = {NULL, 0};
    struct libdeflate_decompressor *decompressor = NULL;
    uint64_t size = 0;
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
        if (!cnse_png_reserve(&compressed, size + length, budget)) {
            goto done;
        }
        if (!cnse_png_read_exactly(file, compressed.data + size, length)) {
            goto done;
        }
        uint32_t crc = libdeflate_crc32(libdeflate_crc32(0, header + 4, 4), compressed.data + size, length);
        if (!cnse_png_crc_matches(file, crc)) {
            goto done;
        }
        size += length;
    }
    // The zlib header: deflate with a 32 KiB window and no preset dictionary (a smaller window makes zlib refuse
    // distances libdeflate would accept, so such streams go to libpng).
    const unsigned char *zlib = compressed.data;
    if (size < 2 || zlib[0] != 0x78 || (zlib[1] & 0x20) != 0 || ((zlib[0] << 8) | zlib[1]) % 31 != 0) {
        goto done;
    }
    size_t wanted = expected > 0 ? (size_t)expected : 1;
    inflated = cnse_png_buffer_take(wanted);
    if (inflated.capacity < wanted) {
        free(inflated.data);
        inflated.data = malloc(wanted);
        inflated.capacity = inflated.data != NULL ? wanted : 0;
    }
    decompressor = libdeflate_alloc_decompressor();
    if (inflated.data == NULL || decompressor == NULL) {
        goto done;
    }
    size_t used = 0, produced = 0;
    // Exactly `expected` bytes from exactly all of the data: too little, too much or trailing bytes go to libpng.
    if (libdeflate_zlib_decompress_ex(decompressor, zlib, (size_t)size, inflated.data, (size_t)expected, &used,
                                      &produced) != LIBDEFLATE_SUCCESS ||
        used != size || produced != expected || !cnse_png_all_filters_valid(inflated.data, layout)) {
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
    cnse_png_buffer_give(inflated);
    cnse_png_buffer_give(compressed);
    return clean;
}
