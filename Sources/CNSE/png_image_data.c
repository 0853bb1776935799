// cnse_png_image_data_check: the PNG checker's cheap path for the image data (the IDAT chunks and what follows).
// Why: inflating with zlib and unfiltering every row in libpng was most of a batch's CPU. Validation needs the
// data inflated and each row's filter type checked, not the rows unfiltered. ISA-L's inflate (igzip) streams the
// data through a fixed 256 KiB window of output about 1.7 times as fast as libdeflate inflated it whole (which
// needed the compressed and the inflated image in memory), and libdeflate about twice as fast as zlib. Why it is
// safe: it only ever vouches for a file it has checked completely (every chunk CRC, the zlib header, the deflate
// data and its Adler-32, the exact amount of data, every filter byte, nothing after the data but skipped metadata
// and IEND); anything else, damage included, sends the caller back to libpng's full decode, which then finds and
// words the damage as before.

#include "cnse_png_image_data.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/// The filter types PNG defines (None, Sub, Up, Average, Paeth); libpng fails on any other filter byte.
#define CNSE_PNG_LAST_FILTER 4

/// Compressed bytes read at a time, and inflated bytes produced at a time: the whole working memory with ISA-L's
/// state (its 32 KiB history included), whatever the image's size.
#define CNSE_PNG_INPUT_BYTES ((size_t)64 * 1024)
#define CNSE_PNG_OUTPUT_BYTES ((size_t)256 * 1024)

typedef struct {
    struct inflate_state state;
    unsigned char input[CNSE_PNG_INPUT_BYTES];
    unsigned char output[CNSE_PNG_OUTPUT_BYTES];
} cnse_png_inflater;

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
    uint32_t crc = crc32_gzip_refl(0, type, 4);
    while (length > 0) {
        size_t part = length < sizeof(buffer) ? length : sizeof(buffer);
        if (!cnse_png_read_exactly(file, buffer, part)) {
            return 0;
        }
        crc = crc32_gzip_refl(crc, buffer, part);
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

/// Where the inflated data stands in the image's rows: one pass, or Adam7's seven reduced images (a pass with no
/// pixels has no rows at all, not even filter bytes), each row a filter byte then its pixels.
typedef struct {
    const cnse_png_image_layout *layout;
    /// The pass of the rows below (always 0 when not interlaced); 7 once every row has come.
    int pass;
    uint64_t rows_left;
    /// Bytes of each row of this pass, its filter byte included.
    uint64_t row_bytes;
    /// Bytes of the current row already seen: 0 means the next byte is a filter byte.
    uint64_t offset;
} cnse_png_rows;

/// Bytes of one row of `pixels` pixels, plus its filter byte.
static uint64_t cnse_png_row_bytes(uint64_t pixels, uint32_t bits_per_pixel) {
    return 1 + (pixels * bits_per_pixel + 7) / 8;
}

/// Moves `rows` to the first pass from `pass` on that has pixels; pass 7 when there is none.
static void cnse_png_rows_enter(cnse_png_rows *rows, int pass) {
    static const uint32_t x_start[7] = {0, 4, 0, 2, 0, 1, 0}, x_step[7] = {8, 8, 4, 4, 2, 2, 1};
    static const uint32_t y_start[7] = {0, 0, 4, 0, 2, 0, 1}, y_step[7] = {8, 8, 8, 4, 4, 2, 2};
    const cnse_png_image_layout *layout = rows->layout;
    rows->offset = 0;
    rows->rows_left = 0;
    if (!layout->interlaced) {
        if (pass == 0 && layout->width > 0 && layout->height > 0) {
            rows->rows_left = layout->height;
            rows->row_bytes = cnse_png_row_bytes(layout->width, layout->bits_per_pixel);
            rows->pass = 0;
        } else {
            rows->pass = 7;
        }
        return;
    }
    for (; pass < 7; pass++) {
        uint64_t columns = layout->width > x_start[pass] ? (layout->width - x_start[pass] + x_step[pass] - 1) / x_step[pass] : 0;
        uint64_t count = layout->height > y_start[pass] ? (layout->height - y_start[pass] + y_step[pass] - 1) / y_step[pass] : 0;
        if (columns > 0 && count > 0) {
            rows->rows_left = count;
            rows->row_bytes = cnse_png_row_bytes(columns, layout->bits_per_pixel);
            break;
        }
    }
    rows->pass = pass;
}

/// Takes in the next `count` inflated bytes: 0 when a filter byte is not one PNG defines or the data goes past
/// the last row.
static int cnse_png_rows_take(cnse_png_rows *rows, const unsigned char *data, size_t count) {
    while (count > 0) {
        if (rows->pass == 7) {
            return 0;
        }
        if (rows->offset == 0 && data[0] > CNSE_PNG_LAST_FILTER) {
            return 0;
        }
        uint64_t rest = rows->row_bytes - rows->offset;
        if (rest > count) {
            rows->offset += count;
            return 1;
        }
        data += rest;
        count -= (size_t)rest;
        rows->offset = 0;
        if (--rows->rows_left == 0) {
            cnse_png_rows_enter(rows, rows->layout->interlaced ? rows->pass + 1 : 7);
        }
    }
    return 1;
}

// Inflaters kept from one image to the next. Each is a mapping of its own (nse sets malloc's mmap threshold to
// 128 KiB), so a fresh one per image would make the kernel fault in and zero its pages every time. At most
// CNSE_PNG_KEPT are kept (two decodes at once on two cores, with room to spare).
#define CNSE_PNG_KEPT 4

static pthread_mutex_t cnse_png_kept_lock = PTHREAD_MUTEX_INITIALIZER;
static cnse_png_inflater *cnse_png_kept[CNSE_PNG_KEPT];

/// A kept inflater, else a new one; NULL when malloc fails.
static cnse_png_inflater *cnse_png_inflater_take(void) {
    cnse_png_inflater *taken = NULL;
    pthread_mutex_lock(&cnse_png_kept_lock);
    for (int slot = 0; slot < CNSE_PNG_KEPT && taken == NULL; slot++) {
        taken = cnse_png_kept[slot];
        cnse_png_kept[slot] = NULL;
    }
    pthread_mutex_unlock(&cnse_png_kept_lock);
    return taken != NULL ? taken : malloc(sizeof(cnse_png_inflater));
}

/// Keeps `inflater` for the next image if a slot is free; frees it otherwise.
static void cnse_png_inflater_give(cnse_png_inflater *inflater) {
    if (inflater == NULL) {
        return;
    }
    pthread_mutex_lock(&cnse_png_kept_lock);
    for (int slot = 0; slot < CNSE_PNG_KEPT && inflater != NULL; slot++) {
        if (cnse_png_kept[slot] == NULL) {
            cnse_png_kept[slot] = inflater;
            inflater = NULL;
        }
    }
    pthread_mutex_unlock(&cnse_png_kept_lock);
    free(inflater);
}

/// Inflates `count` more bytes of the zlib stream and checks the rows they make. Returns 0 on any error in the
/// stream, a bad filter byte, data past the last row, or data after the end of the stream; sets `*ended` once the
/// stream (its Adler-32 checked) has ended.
static int cnse_png_inflate(cnse_png_inflater *inflater, size_t count, cnse_png_rows *rows, int *ended) {
    struct inflate_state *state = &inflater->state;
    state->next_in = inflater->input;
    state->avail_in = (uint32_t)count;
    do {
        uint32_t before = state->avail_in;
        state->next_out = inflater->output;
        state->avail_out = (uint32_t)CNSE_PNG_OUTPUT_BYTES;
        if (isal_inflate(state) != ISAL_DECOMP_OK) {
            return 0;
        }
        size_t produced = CNSE_PNG_OUTPUT_BYTES - state->avail_out;
        // A call that neither reads nor writes would be called again forever: leave such a stream to libpng.
        if (produced == 0 && state->avail_in == before && state->block_state != ISAL_BLOCK_FINISH) {
            return 0;
        }
        if (!cnse_png_rows_take(rows, inflater->output, produced)) {
            return 0;
        }
        if (state->block_state == ISAL_BLOCK_FINISH) {
            // Bytes after the stream's end, whether handed back or still in ISA-L's bit buffer.
            *ended = 1;
            return state->avail_in == 0 && state->read_in_length == 0;
        }
    } while (state->avail_in > 0 || state->avail_out == 0);
    return 1;
}

int cnse_png_image_data_check(FILE *file, const cnse_png_image_layout *layout) {
    // The inflater (ISA-L's state and both buffers) must fit what is left of the memory limit.
    if (layout->memory_left < sizeof(cnse_png_inflater)) {
        return 0;
    }
    // libpng has read the first IDAT chunk's length and type and stopped: read them again here.
    if (fseek(file, -8, SEEK_CUR) != 0) {
        return 0;
    }
    cnse_png_inflater *inflater = cnse_png_inflater_take();
    if (inflater == NULL) {
        return 0;
    }
    isal_inflate_init(&inflater->state);
    // ISA-L reads the zlib header and checks the Adler-32 after the data.
    inflater->state.crc_flag = ISAL_ZLIB;
    cnse_png_rows rows = {.layout = layout};
    cnse_png_rows_enter(&rows, 0);

    int clean = 0, ended = 0;
    // The zlib header's two bytes, which may come in two chunks.
    unsigned char zlib[2];
    uint64_t streamed = 0;
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
        // Empty or oversized IDAT chunks are libpng's to judge (its chunk length limit depends on the image), and
        // so is data after the stream's end.
        if (length == 0 || length > layout->chunk_max || ended) {
            goto done;
        }
        uint32_t crc = crc32_gzip_refl(0, header + 4, 4);
        while (length > 0) {
            size_t part = length < CNSE_PNG_INPUT_BYTES ? length : CNSE_PNG_INPUT_BYTES;
            if (!cnse_png_read_exactly(file, inflater->input, part)) {
                goto done;
            }
            crc = crc32_gzip_refl(crc, inflater->input, part);
            for (size_t index = 0; index < part && streamed + index < 2; index++) {
                zlib[streamed + index] = inflater->input[index];
            }
            streamed += part;
            // The zlib header: deflate with a 32 KiB window and no preset dictionary (a smaller window makes zlib
            // refuse distances ISA-L would accept, so such streams go to libpng).
            if (streamed >= 2 && (zlib[0] != 0x78 || (zlib[1] & 0x20) != 0 || ((zlib[0] << 8) | zlib[1]) % 31 != 0)) {
                goto done;
            }
            if (ended || !cnse_png_inflate(inflater, part, &rows, &ended)) {
                goto done;
            }
            length -= (uint32_t)part;
        }
        if (!cnse_png_crc_matches(file, crc)) {
            goto done;
        }
    }
    // Exactly all of the data, to its end, and exactly every row: too little or too much goes to libpng.
    if (!ended || rows.pass != 7) {
        goto done;
    }
    // After the data: only the metadata chunks libpng skips, then IEND (empty, with its CRC). The chunk header
    // that ended the IDAT run is in `header`.
    for (;;) {
        uint32_t length = cnse_png_read_u32(header);
        if (memcmp(header + 4, "IEND", 4) == 0) {
            clean = length == 0 && cnse_png_crc_matches(file, crc32_gzip_refl(0, header + 4, 4));
            goto done;
        }
        if (!cnse_png_is_skipped(header + 4, layout->skipped_chunks, layout->skipped_chunk_count) ||
            length > layout->chunk_max || !cnse_png_skip_chunk(file, header + 4, length) ||
            !cnse_png_read_exactly(file, header, 8)) {
            goto done;
        }
    }

done:
    cnse_png_inflater_give(inflater);
    return clean;
}
