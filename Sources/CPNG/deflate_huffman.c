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
    // Insertion sort, ascending by frequency: at most 286 symbols, mostly already in order for literals.
    for (int i = 1; i < used; i++) {
        uint32_t key = keys[i];
        uint16_t symbol = symbols[i];
        int j = i - 1;
        while (j >= 0 && keys[j] > key) {
            keys[j + 1] = keys[j];
            symbols[j + 1] = symbols[j];
            j--;
        }
        keys[j + 1] = key;
        symbols[j + 1] = symbol;
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
        uint32_t value = next[length]++, reversed = 0;
        for (unsigned b = 0; b < length; b++) {
            reversed = (reversed << 1) | ((value >> b) & 1);
        }
        codes[s] = (uint16_t)reversed;
    }
}
