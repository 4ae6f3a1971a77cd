#if canImport(Glibc)
import CMalloc
#endif

/// How the C allocator is set up for image work.
public enum MallocTuning {
    /// Large blocks (1 MiB and more: pixel buffers, encoded images) always get their own mapping, returned to the
    /// system when freed. By default glibc raises this threshold each time such a block is freed, after which large
    /// buffers come from the heap and fragment it: with 2048-pixel renders that kept about 170 MB more resident than
    /// the memory caches' budgets. Call once at start, before any large allocation.
    public static func returnLargeBlocksToTheSystem() {
        #if canImport(Glibc)
        _ = mallopt(bd_malloc_mmap_threshold, 1 << 20)
        #endif
    }
}
