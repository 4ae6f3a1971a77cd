// Deflate written for PNG's filtered scanlines. libdeflate's level 1 hashes every position to find a match anywhere
// in its 32 KiB window; in a filtered photo the repeats that pay are near and few: a run of one byte (flat areas
// filter to zeros), the pixel before (gradients filter to one pixel repeated) and the same pixel a row up. Looking
// only there, greedily, and coding each block of symbols with its own Huffman codes compresses a render about as
// well as libdeflate's level 1 in two thirds of its time. Blocks that would not shrink are stored. A sparse probe
// estimates what the search is blind to (stretches that repeat at other distances), so that the PNG writer can hand
// textures to libdeflate.
//
// When it can go: it saves about 3 ms of a 13 ms cold render at 640x1136 (make bench: 6.5 against 9.8 ms for
// libdeflate level 1 on the same rows, 3 % fewer bytes); delete it, and its tests, when libdeflate or another
// library compresses filtered photos as fast (render.pngEncoder = libdeflate is the switch that replaces it).
#include "scanline_deflate.h"
#include "deflate_huffman.h"

#include <libdeflate.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

enum {
    MIN_MATCH = 4,
    MAX_MATCH = 258,
    MAX_DISTANCE = 32768,
    BLOCK_SYMBOLS = 1 << 14,
    LITLEN_CODES = 286,
    DIST_CODES = 30,
    CODELEN_CODES = 19,
    END_OF_BLOCK = 256,
};

static const uint16_t length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                         31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                         2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t distance_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                           33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                           1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t distance_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                           6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
static const uint8_t codelen_order[CODELEN_CODES] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

static inline uint32_t load32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint64_t load64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline unsigned distance_code(uint32_t distance) {
    uint32_t x = distance - 1;
    if (x < 4) {
        return x;
    }
    unsigned bits = 31u - (unsigned)__builtin_clz(x);
    return 2 * bits + ((x >> (bits - 1)) & 1);
}

// How far bytes at p equal those `distance` before, from `known` (already compared) up to `limit`.
static inline size_t match_length(const uint8_t *p, size_t distance, size_t known, size_t limit) {
    const uint8_t *earlier = p - distance;
    size_t length = known;
    while (length + 8 <= limit) {
        uint64_t difference = load64(p + length) ^ load64(earlier + length);
        if (difference != 0) {
            return length + (size_t)(__builtin_ctzll(difference) >> 3);
        }
        length += 8;
    }
    while (length < limit && p[length] == earlier[length]) {
        length++;
    }
    return length;
}

// MARK: - bits

typedef struct {
    uint64_t bits;
    unsigned count;  // below 8 between calls
    uint8_t *out;
} bit_writer;

// Adds up to 56 bits. Always stores eight bytes and moves on by the whole ones, so no branch depends on the data
// (the output has eight bytes of slack).
static inline void put_bits(bit_writer *w, uint64_t value, unsigned count) {
    w->bits |= value << w->count;
    w->count += count;
    uint64_t little = w->bits;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    little = __builtin_bswap64(little);
#endif
    memcpy(w->out, &little, 8);
    unsigned bytes = w->count >> 3;
    w->out += bytes;
    w->bits = bytes == 0 ? w->bits : w->bits >> (bytes * 8);
    w->count &= 7;
}

// Pads to a byte boundary with zero bits.
static void align_bits(bit_writer *w) {
    if (w->count > 0) {
        put_bits(w, 0, 8 - w->count);
    }
}

// MARK: - blocks

typedef struct {
    uint32_t literals[LITLEN_CODES];
    uint32_t distances[DIST_CODES];
} frequencies;

static void write_stored(bit_writer *w, const uint8_t *raw, size_t length, int final) {
    do {
        size_t chunk = length < 65535 ? length : 65535;
        length -= chunk;
        put_bits(w, final && length == 0 ? 1 : 0, 3);
        align_bits(w);
        uint8_t header[4] = {(uint8_t)chunk, (uint8_t)(chunk >> 8), (uint8_t)~chunk, (uint8_t)(~chunk >> 8)};
        memcpy(w->out, header, 4);
        memcpy(w->out + 4, raw, chunk);
        w->out += 4 + chunk;
        raw += chunk;
    } while (length > 0);
}

// A block's symbols: runs of literals (read back from the input), each followed by a match.
typedef struct {
    uint32_t literals;  // literal bytes before the match
    uint32_t match;     // length << 16 | distance; 0 for literals that end the block
} item;

// Writes one block that codes `raw` as `count` items; returns 1 if it was stored instead.
static int write_block(bit_writer *w, const item *items, size_t count, frequencies *f, const uint8_t *raw,
                       size_t raw_length, int final, const uint8_t *length_code) {
    f->literals[END_OF_BLOCK] = 1;
    uint8_t literal_lengths[LITLEN_CODES], distance_lengths[DIST_CODES], lengths[LITLEN_CODES + DIST_CODES];
    bd_huffman_lengths(f->literals, LITLEN_CODES, 15, literal_lengths);
    bd_huffman_lengths(f->distances, DIST_CODES, 15, distance_lengths);
    int literal_count = LITLEN_CODES, distance_count = DIST_CODES;
    while (literal_count > 257 && literal_lengths[literal_count - 1] == 0) {
        literal_count--;
    }
    while (distance_count > 1 && distance_lengths[distance_count - 1] == 0) {
        distance_count--;
    }
    memcpy(lengths, literal_lengths, (size_t)literal_count);
    memcpy(lengths + literal_count, distance_lengths, (size_t)distance_count);

    // The code lengths, run-length coded with 16 (repeat previous 3-6 times), 17 (3-10 zeros), 18 (11-138 zeros).
    uint8_t runs[LITLEN_CODES + DIST_CODES], run_extra[LITLEN_CODES + DIST_CODES];
    int run_count = 0, total = literal_count + distance_count;
    uint32_t codelen_frequencies[CODELEN_CODES] = {0};
    for (int i = 0; i < total;) {
        uint8_t length = lengths[i];
        int run = 1;
        while (i + run < total && lengths[i + run] == length) {
            run++;
        }
        i += run;
        if (length == 0) {
            while (run >= 11) {
                int n = run < 138 ? run : 138;
                runs[run_count] = 18, run_extra[run_count++] = (uint8_t)(n - 11);
                run -= n;
            }
            if (run >= 3) {
                runs[run_count] = 17, run_extra[run_count++] = (uint8_t)(run - 3);
                run = 0;
            }
        } else {
            runs[run_count] = length, run_extra[run_count++] = 0;
            run--;
            while (run >= 3) {
                int n = run < 6 ? run : 6;
                runs[run_count] = 16, run_extra[run_count++] = (uint8_t)(n - 3);
                run -= n;
            }
        }
        while (run-- > 0) {
            runs[run_count] = length, run_extra[run_count++] = 0;
        }
    }
    for (int i = 0; i < run_count; i++) {
        codelen_frequencies[runs[i]]++;
    }
    uint8_t codelen_lengths[CODELEN_CODES];
    uint16_t codelen_codes[CODELEN_CODES];
    bd_huffman_lengths(codelen_frequencies, CODELEN_CODES, 7, codelen_lengths);
    bd_huffman_codes(codelen_lengths, CODELEN_CODES, codelen_codes);
    int order_count = CODELEN_CODES;
    while (order_count > 4 && codelen_lengths[codelen_order[order_count - 1]] == 0) {
        order_count--;
    }

    // The block's exact size, to store it instead if coding does not pay.
    uint64_t bits = 3 + 5 + 5 + 4 + 3 * (uint64_t)order_count;
    static const uint8_t run_extra_bits[CODELEN_CODES] = {[16] = 2, [17] = 3, [18] = 7};
    for (int i = 0; i < run_count; i++) {
        bits += codelen_lengths[runs[i]] + run_extra_bits[runs[i]];
    }
    for (int s = 0; s < LITLEN_CODES; s++) {
        bits += (uint64_t)f->literals[s] * (literal_lengths[s] + (s > END_OF_BLOCK ? length_extra[s - 257] : 0));
    }
    for (int s = 0; s < DIST_CODES; s++) {
        bits += (uint64_t)f->distances[s] * (distance_lengths[s] + distance_extra[s]);
    }
    uint64_t stored_bits = ((uint64_t)raw_length + 5 * (raw_length / 65535 + 1)) * 8 + 10;
    if (bits >= stored_bits) {
        write_stored(w, raw, raw_length, final);
        return 1;
    }

    uint16_t literal_codes[LITLEN_CODES], distance_codes[DIST_CODES];
    bd_huffman_codes(literal_lengths, LITLEN_CODES, literal_codes);
    bd_huffman_codes(distance_lengths, DIST_CODES, distance_codes);
    put_bits(w, (final ? 1u : 0u) | (2u << 1), 3);
    put_bits(w, (uint32_t)(literal_count - 257), 5);
    put_bits(w, (uint32_t)(distance_count - 1), 5);
    put_bits(w, (uint32_t)(order_count - 4), 4);
    for (int i = 0; i < order_count; i++) {
        put_bits(w, codelen_lengths[codelen_order[i]], 3);
    }
    for (int i = 0; i < run_count; i++) {
        put_bits(w, codelen_codes[runs[i]], codelen_lengths[runs[i]]);
        if (runs[i] >= 16) {
            put_bits(w, run_extra[i], run_extra_bits[runs[i]]);
        }
    }
    const uint8_t *p = raw;
    for (size_t i = 0; i < count; i++) {
        uint32_t literals = items[i].literals, match = items[i].match;
        // Three literals a write (at most 45 bits), so that the writer's chain of dependent steps is a third as long.
        for (; literals >= 3; literals -= 3, p += 3) {
            unsigned l0 = literal_lengths[p[0]], l1 = literal_lengths[p[1]], l2 = literal_lengths[p[2]];
            uint64_t value = literal_codes[p[0]] | (uint64_t)literal_codes[p[1]] << l0 |
                             (uint64_t)literal_codes[p[2]] << (l0 + l1);
            put_bits(w, value, l0 + l1 + l2);
        }
        for (; literals > 0; literals--, p++) {
            put_bits(w, literal_codes[*p], literal_lengths[*p]);
        }
        if (match == 0) {
            continue;
        }
        // A match in one write: length code, its extra bits, distance code, its extra bits (at most 48 bits).
        uint32_t length = match >> 16, distance = match & 0xffff;
        unsigned lc = length_code[length], dc = distance_code(distance);
        uint64_t value = literal_codes[257 + lc];
        unsigned bits_used = literal_lengths[257 + lc];
        value |= (uint64_t)(length - length_base[lc]) << bits_used;
        bits_used += length_extra[lc];
        value |= (uint64_t)distance_codes[dc] << bits_used;
        bits_used += distance_lengths[dc];
        value |= (uint64_t)(distance - distance_base[dc]) << bits_used;
        put_bits(w, value, bits_used + distance_extra[dc]);
        p += length;
    }
    put_bits(w, literal_codes[END_OF_BLOCK], literal_lengths[END_OF_BLOCK]);
    return 0;
}

// MARK: - the stream

size_t bd_scanline_deflate_bound(size_t length) {
    // Stored blocks at worst: 5 bytes a 65535 (and one a block, blocks being at least BLOCK_SYMBOLS bytes), the
    // zlib header and trailer, and slack for the last partial byte.
    return length + 5 * (length / 65535 + length / BLOCK_SYMBOLS + 2) + 2 + 4 + 8;
}

typedef struct {
    size_t position, length, distance;  // length 0: no match
} match;

// The longest of the candidates `hits` names (bit 0: the byte before, 1: `near`, 2: `above`) at `position`.
static match longest(const uint8_t *in, size_t length, size_t position, unsigned hits, size_t near, size_t above) {
    const size_t distances[3] = {1, near, above};
    size_t limit = length - position < MAX_MATCH ? length - position : MAX_MATCH;
    match best = {position, 0, 0};
    for (int c = 0; c < 3; c++) {
        if (hits & (1u << c)) {
            size_t found = match_length(in + position, distances[c], MIN_MATCH, limit);
            if (found > best.length) {
                best.length = found;
                best.distance = distances[c];
            }
        }
    }
    return best;
}

// Which candidates repeat the four bytes at `i` (bit 0: the byte before, 1: `near`, 2: `above`).
static inline unsigned scalar_hits(const uint8_t *in, size_t i, size_t near, size_t above) {
    uint32_t current = load32(in + i);
    return (unsigned)(i >= 1 && load32(in + i - 1) == current) | (unsigned)(i >= near && load32(in + i - near) == current) << 1 |
           (unsigned)(i >= above && load32(in + i - above) == current) << 2;
}

// The first match from `i` on that starts before `stop`: four or more bytes repeated at one of the candidate
// distances (1, `near`, `above`), the longest there. Reads only within in[0..<length].
static match next_match(const uint8_t *in, size_t length, size_t i, size_t stop, size_t near, size_t above,
                        int vector) {
    const size_t safe = above > near ? above : near;  // from here on every candidate lies within the input
    for (; i < stop && i < safe; i++) {
        unsigned hits = scalar_hits(in, i, near, above);
        if (hits != 0) {
            return longest(in, length, i, hits, near, above);
        }
    }
#if defined(__SSE2__)
    // 29 positions a step: 32 bytes compared at each distance, a match needing four equal in a row. Where one
    // starts, the masks give each candidate's length too, unless it runs to the end of the 32 bytes.
    const size_t distances[3] = {1, near, above};
    for (; vector && i < stop && i + 32 <= length; i += 29) {
        uint32_t equal[3], starts[3];
        __m128i a0 = _mm_loadu_si128((const __m128i *)(in + i)), a1 = _mm_loadu_si128((const __m128i *)(in + i + 16));
        for (int c = 0; c < 3; c++) {
            const uint8_t *q = in + i - distances[c];
            __m128i b0 = _mm_loadu_si128((const __m128i *)q), b1 = _mm_loadu_si128((const __m128i *)(q + 16));
            equal[c] = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a0, b0)) |
                       (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a1, b1)) << 16;
            starts[c] = equal[c] & equal[c] >> 1 & equal[c] >> 2 & equal[c] >> 3 & 0x1fffffffu;
        }
        uint32_t any = starts[0] | starts[1] | starts[2];
        if (any == 0) {
            continue;
        }
        unsigned k = (unsigned)__builtin_ctz(any);
        if (i + k >= stop) {
            return (match){stop, 0, 0};
        }
        match best = {i + k, 0, 0};
        for (int c = 0; c < 3; c++) {
            // Equal bytes from k on; the zeros shifted in above bit 31 stop the count at the 32 bytes' end.
            size_t run = (size_t)__builtin_ctzll(~((uint64_t)equal[c] >> k));
            run = (starts[c] >> k & 1) ? run : 0;
            best.distance = run > best.length ? distances[c] : best.distance;
            best.length = run > best.length ? run : best.length;
        }
        if (best.length == 32 - k) {
            unsigned hits = (starts[0] >> k & 1) | (starts[1] >> k & 1) << 1 | (starts[2] >> k & 1) << 2;
            best = longest(in, length, i + k, hits, near, above);
        }
        return best;
    }
#else
    (void)vector;
#endif
    for (; i < stop; i++) {
        unsigned hits = scalar_hits(in, i, near, above);
        if (hits != 0) {
            return longest(in, length, i, hits, near, above);
        }
    }
    return (match){stop, 0, 0};
}

// Adds in[from..<to] (in[0..<length]) to the literal counts; four tables, so that runs of one byte do not wait on each other.
static void count_literals(const uint8_t *in, size_t length, size_t from, size_t to, uint32_t counts[4][256]) {
    size_t i = from;
    if (to - from <= 8 && from + 8 <= length) {
        // Short runs, the usual between matches, without a branch on their length: eight bytes counted, each by
        // whether it is in the run.
        for (size_t k = 0; k < 8; k++) {
            counts[k & 3][in[from + k]] += (uint32_t)(k < to - from);
        }
        return;
    }
    for (; i + 4 <= to; i += 4) {
        counts[0][in[i]]++;
        counts[1][in[i + 1]]++;
        counts[2][in[i + 2]]++;
        counts[3][in[i + 3]]++;
    }
    for (; i < to; i++) {
        counts[0][in[i]]++;
    }
}

// MARK: - what the search is blind to

enum {
    PROBE_STEP = 32,    // positions remembered: one in PROBE_STEP, and every position of a probed window
    PROBE_LENGTH = 48,  // a repeat counts from this many bytes
    PROBE_TABLE_BITS = 12,
};

// Remembers where eight-byte strings were last seen (one position in PROBE_STEP, and every position of the windows it
// probes), and probes PROBE_STEP positions every `spacing` bytes for a repeat of PROBE_LENGTH bytes at a distance the
// search does not try, which a repeat of any distance in the window reaches. Each probed window that finds one adds
// the share of its block's bits that it stands for to `blind_bits`: an estimate of what the search spent where a
// general matcher (libdeflate's) finds long repeats.
typedef struct {
    uint32_t *table;  // position + 1; 0 for none
    size_t remembered;  // the next position to remember
    size_t window;      // the next window to probe
    size_t spacing;
} probe;

static inline uint32_t probe_hash(const uint8_t *p) {
    return (uint32_t)((load64(p) * 0x9E3779B97F4A7C15ull) >> (64 - PROBE_TABLE_BITS));
}

// Whether the PROBE_LENGTH bytes at `q` repeat `distance` back, and the search could not have coded them (no
// candidate distance repeats them all).
static int blind_repeat(const uint8_t *in, size_t q, size_t distance, size_t near, size_t above) {
    if (distance == 0 || distance > MAX_DISTANCE || memcmp(in + q, in + q - distance, PROBE_LENGTH) != 0) {
        return 0;
    }
    const size_t candidates[3] = {1, near, above};
    for (int c = 0; c < 3; c++) {
        if (q >= candidates[c] && match_length(in + q, candidates[c], 0, PROBE_LENGTH) == PROBE_LENGTH) {
            return 0;
        }
    }
    return 1;
}

// Probes the windows that start in in[start..<end], a block that took `block_bits`.
static uint64_t probe_block(probe *p, const uint8_t *in, size_t length, size_t start, size_t end, uint64_t block_bits,
                            size_t near, size_t above) {
    uint64_t blind = 0;
    size_t block = end - start > p->spacing ? end - start : p->spacing;
    for (; p->window < end; p->window += p->spacing) {
        size_t window = p->window;
        for (; p->remembered < window && p->remembered + 8 <= length; p->remembered += PROBE_STEP) {
            p->table[probe_hash(in + p->remembered)] = (uint32_t)p->remembered + 1;
        }
        for (size_t q = window; q < window + PROBE_STEP && q + PROBE_LENGTH <= length; q++) {
            uint32_t *slot = &p->table[probe_hash(in + q)];
            size_t seen = *slot;
            *slot = (uint32_t)q + 1;
            if (seen != 0 && blind_repeat(in, q, q - (seen - 1), near, above)) {
                blind += block_bits * p->spacing / block;
                break;
            }
        }
    }
    return blind;
}

// MARK: - compress

// The length code (0-28, for symbols 257-285) of each match length 3-258.
static void fill_length_codes(uint8_t length_code[MAX_MATCH + 1]) {
    memset(length_code, 0, MAX_MATCH + 1);
    for (int code = 0; code < 29; code++) {
        int end = code == 28 ? MAX_MATCH + 1 : length_base[code + 1];
        for (int l = length_base[code]; l < end; l++) {
            length_code[l] = (uint8_t)code;
        }
    }
}

size_t bd_scanline_deflate(const uint8_t *in, size_t length, size_t row_bytes, size_t pixel_bytes,
                           bd_scanline_search search, uint8_t *out, bd_scanline_report *report) {
    memset(report, 0, sizeof *report);
    item *items = malloc(sizeof(item) * (BLOCK_SYMBOLS + 1));
    uint32_t *table = calloc((size_t)1 << PROBE_TABLE_BITS, sizeof(uint32_t));
    if (items == NULL || table == NULL || length > UINT32_MAX - 1) {
        free(items);
        free(table);
        return 0;
    }
    uint8_t length_code[MAX_MATCH + 1];
    fill_length_codes(length_code);
    // The candidates: the byte before, the pixel before, the pixel above (the byte before again if the row is
    // beyond the window).
    const size_t near = pixel_bytes, above = row_bytes <= MAX_DISTANCE ? row_bytes : 1;
    // Matches can start only where four bytes remain.
    const size_t last_start = length >= MIN_MATCH ? length - MIN_MATCH + 1 : 0;
    const int vector = search == BD_SCANLINE_VECTOR;
    // About 256 windows over small inputs, one every 4 KiB over large ones.
    size_t spacing = PROBE_STEP * 4;
    while (spacing < 4096 && spacing * 256 < length) {
        spacing *= 2;
    }
    probe p = {table, 0, 0, spacing};

    out[0] = 0x78;  // deflate, 32 KiB window
    out[1] = 0x01;  // no dictionary, fastest (0x7801 is a multiple of 31)
    bit_writer w = {0, 0, out + 2};
    frequencies f;
    uint32_t counts[4][256];
    size_t i = 0;
    do {
        size_t start = i, symbols = 0, count = 0, run_start = i;
        memset(&f, 0, sizeof f);
        memset(counts, 0, sizeof counts);
        while (i < length && symbols < BLOCK_SYMBOLS) {
            size_t stop = i + (BLOCK_SYMBOLS - symbols);
            stop = stop < last_start ? stop : last_start;
            match found = i < stop ? next_match(in, length, i, stop, near, above, vector) : (match){i, 0, 0};
            size_t next = found.position, best = found.length, best_distance = found.distance;
            if (best == 0) {
                // No match before the block is full or the input ends: the rest are literals.
                next = i + (BLOCK_SYMBOLS - symbols);
                next = next < length ? next : length;
            }
            count_literals(in, length, i, next, counts);
            symbols += next - i;
            i = next;
            if (best == 0) {
                break;
            }
            items[count++] = (item){(uint32_t)(i - run_start), (uint32_t)(best << 16 | best_distance)};
            f.literals[257 + length_code[best]]++;
            f.distances[distance_code((uint32_t)best_distance)]++;
            symbols++;
            i += best;
            run_start = i;
        }
        if (i > run_start || count == 0) {
            items[count++] = (item){(uint32_t)(i - run_start), 0};
        }
        for (int b = 0; b < 256; b++) {
            f.literals[b] = counts[0][b] + counts[1][b] + counts[2][b] + counts[3][b];
        }
        report->full_blocks += symbols >= BLOCK_SYMBOLS;
        for (int c = 0; c < 29; c++) {
            report->length_codes[c] += f.literals[257 + c];
        }
        for (int c = 0; c < 30; c++) {
            report->distance_codes[c] += f.distances[c];
        }
        uint64_t before = (uint64_t)(w.out - out) * 8 + w.count;
        int stored = write_block(&w, items, count, &f, in + start, i - start, i == length, length_code);
        report->stored_blocks += (uint64_t)stored;
        report->coded_blocks += (uint64_t)!stored;
        uint64_t block_bits = (uint64_t)(w.out - out) * 8 + w.count - before;
        report->blind_bits += i > start ? probe_block(&p, in, length, start, i, block_bits, near, above) : 0;
    } while (i < length);
    align_bits(&w);
    free(items);
    free(table);
    uint32_t adler = libdeflate_adler32(1, in, length);
    uint8_t *end = w.out;
    end[0] = (uint8_t)(adler >> 24);
    end[1] = (uint8_t)(adler >> 16);
    end[2] = (uint8_t)(adler >> 8);
    end[3] = (uint8_t)adler;
    return (size_t)(end + 4 - out);
}

// MARK: - the codes, for tests

int bd_deflate_length_code(unsigned length, unsigned *extra_bits, unsigned *extra_value) {
    if (length < 3 || length > MAX_MATCH) {
        return -1;
    }
    uint8_t length_code[MAX_MATCH + 1];
    fill_length_codes(length_code);
    unsigned code = length_code[length];
    *extra_bits = length_extra[code];
    *extra_value = length - length_base[code];
    return 257 + (int)code;
}

int bd_deflate_distance_code(unsigned distance, unsigned *extra_bits, unsigned *extra_value) {
    if (distance < 1 || distance > MAX_DISTANCE) {
        return -1;
    }
    unsigned code = distance_code(distance);
    *extra_bits = distance_extra[code];
    *extra_value = distance - distance_base[code];
    return (int)code;
}
