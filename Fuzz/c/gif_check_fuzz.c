// libFuzzer target for cnse_gif_check (Sources/CNSE/gif_check.c): every input is a candidate GIF file, checked by
// the cheap path nse uses and by giflib decoding every row; the two must agree.
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return nse_fuzz_compare(cnse_gif_check_stream, cnse_gif_check_stream_full, data, size);
}
