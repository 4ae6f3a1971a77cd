// libFuzzer's entry to the scanline deflate's proof (`make fuzz`): the first three bytes of each input choose the row
// and pixel length, the rest are the rows; any difference between the two searches or the decoders aborts.
#include <stdio.h>
#include <stdlib.h>

#include "cdeflateproof.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    char error[512] = {0};
    if (bd_proof_one(data, size, error, sizeof error) != 0) {
        fprintf(stderr, "%s\n", error);
        abort();
    }
    return 0;
}
