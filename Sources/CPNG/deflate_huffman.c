// Huffman code lengths and canonical codes for deflate blocks (used by scanline_deflate.c).
#include "deflate_huffman.h"

#include <string.h>

enum { MOST_SYMBOLS = 286 };

// Moffat and Katajainen's in-place minimum-redundancy code: `a` holds weights in ascending order and comes back
// holding each one's code length.
static void minimum_redundancy(uint32_t *a, int n) {
    int root = 0, leaf = 2;
    a[0] += a[1];
    for (int next = 1; next < n - 1; next++) {
        if (leaf >= n || a[root] < a[leaf]) {
            a[next] = a[root];
            a[root++] = (uint32_t)next;
        } else {
            a[next] = a[leaf++];
        }
        if (leaf >= n || (root < next && a[root] < a[leaf])) {
            a[next] += a[root];
            a[root++] = (uint32_t)next;
        } else {
            a[next] += a[leaf++];
        }
    }
    a[n - 2] = 0;
    for (int next = n - 3; next >= 0; next--) {
        a[next] = a[a[next]] + 1;
    }
    int available = 1, used = 0, depth = 0, next = n - 1;
    root = n - 2;
    while (available > 0) {
        while (root >= 0 && (int)a[root] == depth) {
            used++;
            root--;
        }
        while (available > used) {
            a[next--] = (uint32_t)depth;
            available--;
        }
        available = 2 * used;
        depth++;
        used = 0;
    }
}

// Code lengths of at most `max_length` bits for `count` symbols; unused symbols get 0. At least two symbols always
// get codes (frequency 0 ones added if needed) so that every code is complete.
void bd_huffman_lengths(const uint32_t *frequencies, int count, int max_length, uint8_t *lengths) {
    uint32_t keys[MOST_SYMBOLS];
    uint16_t symbols[MOST_SYMBOLS];
    int used = 0;
    for (int s = 0; s < count; s++) {
        if (frequencies[s] != 0) {
            keys[used] = frequencies[s];
            symbols[used++] = (uint16_t)s;
        }
    }
    for (int s = 0; used < 2 && s < count; s++) {
        if (frequencies[s] == 0) {
            keys[used] = 1;
            symbols[used++] = (uint16_t)s;
        }
    }
    // Ascending by frequency, ties in symbol order: a stable radix sort, a byte of the frequency a pass, as many passes
    // as the largest frequency has bytes (two for a deflate block's).
    uint32_t largest = 0;
    for (int i = 0; i < used; i++) {
        largest = keys[i] > largest ? keys[i] : largest;
    }
    uint32_t sorted_keys[MOST_SYMBOLS];
    uint16_t sorted_symbols[MOST_SYMBOLS];
    for (unsigned shift = 0; shift < 32 && (largest >> shift) != 0; shift += 8) {
        int starts[257] = {0};
        for (int i = 0; i < used; i++) {
            starts[((keys[i] >> shift) & 0xff) + 1]++;
        }
        for (int b = 0; b < 256; b++) {
            starts[b + 1] += starts[b];
        }
        for (int i = 0; i < used; i++) {
            int at = starts[(keys[i] >> shift) & 0xff]++;
            sorted_keys[at] = keys[i];
            sorted_symbols[at] = symbols[i];
        }
        memcpy(keys, sorted_keys, sizeof(uint32_t) * (size_t)used);
        memcpy(symbols, sorted_symbols, sizeof(uint16_t) * (size_t)used);
    }
    minimum_redundancy(keys, used);
    int per_length[33] = {0};
    for (int i = 0; i < used; i++) {
        per_length[keys[i] > 32 ? 32 : keys[i]]++;
    }
    // Codes longer than the limit are shortened; then codes are lengthened, shortest first, until Kraft's sum is 1.
    for (int i = max_length + 1; i <= 32; i++) {
        per_length[max_length] += per_length[i];
        per_length[i] = 0;
    }
    uint32_t total = 0;
    for (int i = max_length; i > 0; i--) {
        total += (uint32_t)per_length[i] << (max_length - i);
    }
    while (total != (1u << max_length)) {
        per_length[max_length]--;
        for (int i = max_length - 1; i > 0; i--) {
            if (per_length[i] != 0) {
                per_length[i]--;
                per_length[i + 1] += 2;
                break;
            }
        }
        total--;
    }
    memset(lengths, 0, (size_t)count);
    int next = 0;
    for (int length = max_length; length >= 1; length--) {
        for (int k = per_length[length]; k > 0; k--) {
            lengths[symbols[next++]] = (uint8_t)length;
        }
    }
}

// Each byte with its bits in reverse order.
static const uint8_t reversed_bytes[256] = {
#define R2(n) n, n + 2 * 64, n + 1 * 64, n + 3 * 64
#define R4(n) R2(n), R2(n + 2 * 16), R2(n + 1 * 16), R2(n + 3 * 16)
#define R6(n) R4(n), R4(n + 2 * 4), R4(n + 1 * 4), R4(n + 3 * 4)
    R6(0), R6(2), R6(1), R6(3)
#undef R2
#undef R4
#undef R6
};

// Canonical codes, bit-reversed: deflate sends Huffman codes most significant bit first into an LSB-first stream.
void bd_huffman_codes(const uint8_t *lengths, int count, uint16_t *codes) {
    int per_length[16] = {0};
    for (int s = 0; s < count; s++) {
        per_length[lengths[s]]++;
    }
    per_length[0] = 0;
    uint32_t next[16];
    uint32_t code = 0;
    for (int bits = 1; bits < 16; bits++) {
        code = (code + (uint32_t)per_length[bits - 1]) << 1;
        next[bits] = code;
    }
    for (int s = 0; s < count; s++) {
        unsigned length = lengths[s];
        if (length == 0) {
            codes[s] = 0;
            continue;
        }
        uint32_t value = next[length]++;
        codes[s] = (uint16_t)((reversed_bytes[value & 0xff] << 8 | reversed_bytes[value >> 8]) >> (16 - length));
    }
}
