// The scanline deflate's proof (Tests/CDeflateProof) as a program, for `make test`'s build under AddressSanitizer and
// UndefinedBehaviorSanitizer. usage: sanitized SEED STREAMS PNGS
#include <stdio.h>
#include <stdlib.h>

#include "cdeflateproof.h"

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s SEED STREAMS PNGS\n", argv[0]);
        return 2;
    }
    unsigned long long seed = strtoull(argv[1], NULL, 10);
    static bd_proof_counts counts;
    char error[512] = {0};
    if (bd_proof_run(seed, atoi(argv[2]), atoi(argv[3]), &counts, error, sizeof error) != 0) {
        fprintf(stderr, "seed %llu: %s\n", seed, error);
        return 1;
    }
    printf("seed %llu: %llu streams and %llu PNGs (%llu bytes), %llu coded, %llu stored and %llu full blocks: all read back\n",
           seed, (unsigned long long)counts.streams, (unsigned long long)counts.pngs, (unsigned long long)counts.bytes,
           (unsigned long long)counts.coded_blocks, (unsigned long long)counts.stored_blocks,
           (unsigned long long)counts.full_blocks);
    return 0;
}
