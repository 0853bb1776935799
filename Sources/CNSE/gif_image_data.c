// cnse_gif_image_data_check: the GIF checker's cheap path for one frame's LZW data.
// Why: giflib's DGifGetLine expands every code into its pixels one at a time through a stack, which made giflib
// about 15% of a batch's CPU. Validation needs to know whether giflib would accept the codes and how many pixels
// they make, not the pixels. In a well-formed stream every code is a literal, the clear code, an entry already in
// the table, or the entry being added (the "KwKwK" case); an entry's string is one pixel longer than its prefix's.
// So a table of string lengths stands in for giflib's prefix, suffix and stack tables.
// Why it is safe: it follows giflib 5.2.1's decoder state exactly (when the code width grows, the table stopping
// at 4096 codes until a clear code, which bytes are read when) and vouches only for streams in which every code is
// one of those four kinds. On such a stream giflib cannot fail: its only check on a decoded string is a length of
// 4095 or more, and strings grow by one pixel per entry from 2 pixels over at most 4094 entries. Anything else (a
// code past the table, the end code before the last pixel, an empty or short block) answers 0, and the caller
// decodes the file with giflib from its start, which finds and words the damage as before.

#include "cnse_gif_image_data.h"

#include <endian.h>
#include <string.h>

/// giflib's LZ_MAX_CODE and LZ_BITS: the largest code and the widest code.
#define CNSE_GIF_MAX_CODE 4095u
#define CNSE_GIF_MAX_BITS 12u

/// The data sub-block being read. The FILE belongs to this call's thread, hence the unlocked stdio calls.
typedef struct {
    FILE *file;
    unsigned position;
    unsigned length;
    unsigned char bytes[255];
} cnse_gif_block;

/// Reads the next sub-block. 0 at the end of the file or on an empty block, which giflib refuses before the
/// frame's last pixel (D_GIF_ERR_READ_FAILED, D_GIF_ERR_IMAGE_DEFECT).
static int cnse_gif_next_block(cnse_gif_block *block) {
    int length = getc_unlocked(block->file);
    if (length == EOF || length == 0 || fread_unlocked(block->bytes, 1, (size_t)length, block->file) != (size_t)length) {
        return 0;
    }
    block->position = 0;
    block->length = (unsigned)length;
    return 1;
}

int cnse_gif_image_data_check(FILE *file, unsigned code_size, uint64_t pixels) {
    if (code_size > 8) {
        return 0;
    }
    // Pixels of each code's string: 1 for the literals, 0 for the clear and end codes (which make none), then the
    // table's entries below `next_entry`. Nothing needs clearing: a clear code only moves `next_entry` back, and
    // entries are set in order.
    uint16_t lengths[CNSE_GIF_MAX_CODE + 1];
    const unsigned clear = 1u << code_size;
    for (unsigned code = 0; code < clear; code++) {
        lengths[code] = 1;
    }
    lengths[clear] = 0;
    lengths[clear + 1] = 0;
    // giflib's RunningCode, RunningBits and MaxCode1, as DGifSetupDecompress and a clear code set them.
    unsigned running_code = clear + 2;
    unsigned width = code_size + 1;
    unsigned width_limit = 1u << width;
    unsigned next_entry = clear + 2;
    // Pixels of the previous code's string; 0 when there is none (after a clear code, at the frame's start).
    unsigned last_length = 0;

    cnse_gif_block block = {.file = file, .position = 0, .length = 0};
    uint64_t bits = 0;
    unsigned held = 0;
    uint64_t produced = 0;
    // giflib reads a code only while the frame still needs pixels; what the last code makes beyond them is dropped.
    while (produced < pixels) {
        if (held < width) {
            if (block.length - block.position >= 8) {
                // Seven bytes or more at once while the block has eight left: the usual case, 255-byte blocks.
                uint64_t word;
                memcpy(&word, block.bytes + block.position, sizeof(word));
                bits |= le64toh(word) << held;
                block.position += (63 - held) >> 3;
                held |= 56;
            } else {
                do {
                    if (block.position == block.length && !cnse_gif_next_block(&block)) {
                        return 0;
                    }
                    bits |= (uint64_t)block.bytes[block.position++] << held;
                    held += 8;
                } while (held < width);
            }
        }
        unsigned code = (unsigned)bits & ((1u << width) - 1);
        bits >>= width;
        held -= width;
        // As DGifDecompressInput: every code read counts, the clear code included, until the table is full.
        if (running_code < CNSE_GIF_MAX_CODE + 2 && ++running_code > width_limit && width < CNSE_GIF_MAX_BITS) {
            width_limit <<= 1;
            width += 1;
        }

        // One branch for the usual case, a literal or an entry in the table (each mispredicted branch costs about
        // as much as the rest of a code's work).
        unsigned length;
        if (code < next_entry) {
            length = lengths[code];
            if (length == 0) {
                if (code != clear) {
                    // The end code before the last pixel: giflib's D_GIF_ERR_EOF_TOO_SOON, in giflib's words.
                    return 0;
                }
                running_code = clear + 2;
                width = code_size + 1;
                width_limit = 1u << width;
                next_entry = clear + 2;
                last_length = 0;
                continue;
            }
        } else if (code == next_entry && last_length != 0) {
            length = last_length + 1;
        } else {
            // A code not in the table: garbage that giflib either decodes into garbage or calls a defect.
            return 0;
        }
        // The entry giflib adds after each code but the first after a clear code; none once the table is full.
        if (last_length != 0 && next_entry <= CNSE_GIF_MAX_CODE) {
            lengths[next_entry] = (uint16_t)(last_length + 1);
            next_entry += 1;
        }
        last_length = length;
        produced += length;
    }

    // As DGifGetLine after the last pixel: the rest of the current block is dropped, then every block is read up
    // to and including the empty one.
    for (;;) {
        int length = getc_unlocked(file);
        if (length == EOF) {
            return 0;
        }
        if (length == 0) {
            return 1;
        }
        if (fread_unlocked(block.bytes, 1, (size_t)length, file) != (size_t)length) {
            return 0;
        }
    }
}
