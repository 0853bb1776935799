#ifndef CNSE_PNG_IMAGE_DATA_H
#define CNSE_PNG_IMAGE_DATA_H

// The PNG checker's cheap path for the image data (png_image_data.c). Kept out of include/: Swift has no use for it.

#include <stdint.h>
#include <stdio.h>

/// What libpng's png_read_info found, which the image data must match.
typedef struct {
    uint32_t width;
    uint32_t height;
    /// Bits per pixel: bit depth x channels.
    uint32_t bits_per_pixel;
    int interlaced;
    /// Largest chunk libpng accepts (its chunk_malloc_max); larger chunks are left to libpng.
    uint64_t chunk_max;
    /// Bytes of the memory limit not yet used by libpng: the inflater (its state and buffers) must fit in it.
    uint64_t memory_left;
    /// The metadata chunks libpng skips (CRC-checked only), as 4 letters + NUL each.
    const unsigned char *skipped_chunks;
    int skipped_chunk_count;
} cnse_png_image_layout;

/// Called right after png_read_info, with `file` just past the first IDAT chunk's length and type. Reads the
/// rest of the file as far as IEND. Returns 1 when the image data and every chunk after it are valid, as libpng's
/// full decode would find them with no error and no warning; 0 when anything is damaged, unusual or over the
/// memory left, and the caller must run the full decode from the start of the file (which words the damage).
int cnse_png_image_data_check(FILE *file, const cnse_png_image_layout *layout);

#endif
