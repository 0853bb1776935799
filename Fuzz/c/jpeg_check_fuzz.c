// libFuzzer target for cnse_jpeg_check (Sources/CNSE/jpeg_check.c): every input is a candidate JPEG file.
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return nse_fuzz_compare(cnse_jpeg_check_stream, cnse_jpeg_check_stream_full, data, size);
}
