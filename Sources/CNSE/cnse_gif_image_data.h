#ifndef CNSE_GIF_IMAGE_DATA_H
#define CNSE_GIF_IMAGE_DATA_H

// The GIF checker's cheap path for one frame's image data (gif_image_data.c). Kept out of include/: Swift has no
// use for it.

#include <stdint.h>
#include <stdio.h>

/// Called right after giflib's DGifGetImageDesc, with `file` just past the frame's LZW minimum code size
/// (`code_size`, at most 8: giflib refuses larger). Reads the frame's data sub-blocks up to and including the
/// empty block that ends them. Returns 1 when giflib's DGifGetLine would deliver all `pixels` pixels from them
/// without an error and then skip exactly the same blocks; 0 when anything is damaged or unusual (a code not yet
/// in the table, the end code before the last pixel, an empty or short block), and the caller must decode the
/// file with giflib from its start (which words the damage).
int cnse_gif_image_data_check(FILE *file, unsigned code_size, uint64_t pixels);

#endif
