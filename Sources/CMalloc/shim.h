// glibc's allocator tuning (mallopt), which Swift's Glibc module does not export.
#if defined(__linux__)
#include <features.h>
#if defined(__GLIBC__)
#include <malloc.h>
/// M_MMAP_THRESHOLD and M_TRIM_THRESHOLD are negative macros, which Swift does not import.
static const int bd_malloc_mmap_threshold = M_MMAP_THRESHOLD;
static const int bd_malloc_trim_threshold = M_TRIM_THRESHOLD;
#endif
#endif
