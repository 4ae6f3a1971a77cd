// Huffman codes for deflate (see deflate_huffman.c).
#ifndef BD_DEFLATE_HUFFMAN_H
#define BD_DEFLATE_HUFFMAN_H

#include <stdint.h>

// Code lengths of at most `max_length` bits for `count` (at most 286) symbols from their frequencies; unused symbols
// get 0. At least two symbols always get codes (unused ones added if needed), so that every code is complete.
void bd_huffman_lengths(const uint32_t *frequencies, int count, int max_length, uint8_t *lengths);

// Canonical codes for `lengths`, bit-reversed: deflate sends a Huffman code's most significant bit first into a
// stream filled from the least significant bit.
void bd_huffman_codes(const uint8_t *lengths, int count, uint16_t *codes);

#endif
