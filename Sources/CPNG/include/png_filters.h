// The PNG row filters of Backdrop's writer (see png_filters.c).
#ifndef BD_PNG_FILTERS_H
#define BD_PNG_FILTERS_H

#include <stddef.h>
#include <stdint.h>

/// PNG's filter types, as the filter byte of each row gives them.
typedef enum {
    BD_PNG_FILTER_NONE = 0,
    BD_PNG_FILTER_SUB = 1,
    BD_PNG_FILTER_UP = 2,
    BD_PNG_FILTER_AVERAGE = 3,
    BD_PNG_FILTER_PAETH = 4,
} bd_png_filter;

/// Writes the filter byte and the RGB8 `row` (`stride` bytes) filtered Up to `out` (stride + 1 bytes); `previous` is
/// the row above, NULL for the first row (which Up leaves as it is).
void bd_png_filter_up(const uint8_t *row, const uint8_t *previous, size_t stride, uint8_t *out);

/// The same with Paeth; `previous` must not be NULL.
void bd_png_filter_paeth(const uint8_t *row, const uint8_t *previous, size_t stride, uint8_t *out);

/// Up or Paeth, by what the row would cost the scanline deflate: Up where it leaves repeats (gradients, blurred
/// areas), Paeth where it leaves smaller residuals (texture). `scratch` holds stride + 1 bytes.
void bd_png_filter_up_or_paeth(const uint8_t *row, const uint8_t *previous, size_t stride, uint8_t *out,
                               uint8_t *scratch);

#endif
