// The scanline deflate's proof: seeded random inputs compressed both ways and read back by zlib, libdeflate and
// libpng (see proof.c). The Swift tests run it; `make test` runs it again under AddressSanitizer and
// UndefinedBehaviorSanitizer (Tests/deflate/sanitized.c), and `make fuzz` feeds it libFuzzer's inputs.
#ifndef BACKDROP_CDEFLATEPROOF_H
#define BACKDROP_CDEFLATEPROOF_H

#include <stddef.h>
#include <stdint.h>

/// What a proof run crossed.
typedef struct {
    uint64_t streams;              // raw filtered-row streams compressed (each by both searches)
    uint64_t pngs;                 // PNG files written by the service's writer
    uint64_t bytes;                // input bytes, both kinds
    uint64_t length_codes[29];     // matches coded with each length code (symbols 257-285)
    uint64_t distance_codes[30];
    uint64_t coded_blocks, stored_blocks, full_blocks;
    uint64_t wide_rows;            // streams or PNGs with rows past the 32 KiB window
    uint64_t widths[2049];         // PNGs of each width up to 2048
} bd_proof_counts;

/// Compresses `streams` seeded random inputs (shapes and contents from `seed`) with the vector and the scalar search,
/// requires the same bytes from both and the input back from zlib and from libdeflate; then writes `pngs` random
/// images (widths 1-70, 2047, 2048 and one over 32 KiB a row) with the service's writer and requires the pixels back
/// from libpng and the filtered rows from zlib. Returns 0, or -1 with the first failure (and the case's seed) in
/// `error`.
int bd_proof_run(uint64_t seed, int streams, int pngs, bd_proof_counts *counts, char *error, size_t error_length);

/// One input from a fuzzer: the first bytes choose the row and pixel length, the rest are the rows. Returns 0, or -1
/// with the failure in `error`.
int bd_proof_one(const uint8_t *data, size_t length, char *error, size_t error_length);

#endif
