// libFuzzer target for cnse_png_check (Sources/CNSE/png_check.c): every input is a candidate PNG file.
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return nse_fuzz_compare(cnse_png_check_stream, cnse_png_check_stream_full, data, size);
}
