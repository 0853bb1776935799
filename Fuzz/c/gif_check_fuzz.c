// libFuzzer target for cnse_gif_check (Sources/CNSE/gif_check.c): every input is a candidate GIF file.
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return nse_fuzz_run(cnse_gif_check_stream, data, size);
}
