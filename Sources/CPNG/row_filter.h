// PNG's row filters for Backdrop's writer (see row_filter.c).
#ifndef BD_ROW_FILTER_H
#define BD_ROW_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "cpng.h"

// Writes the filter byte and the filtered RGB8 `row` (`stride` bytes) to `out`; `previous` is NULL for the first row.
// The choosing filters (adaptive, up-or-paeth) try candidates in `scratch`, four rows of stride + 1 bytes.
void bd_filter_row(bd_png_filter filter, const uint8_t *row, const uint8_t *previous, size_t stride, uint8_t *out,
                   uint8_t *scratch);

#endif
