#if canImport(Glibc)
import CMalloc
#endif

/// How the C allocator is set up for image work.
package enum MallocTuning {
    /// Large blocks (1 MiB and more: pixel buffers, encoded images) always get their own mapping, returned to the
    /// system when freed. By default glibc raises this threshold each time such a block is freed, after which large
    /// buffers come from the heap and fragment it: with 2048-pixel renders that kept about 170 MB more resident than
    /// the memory caches' budgets. Call once at start, before any large allocation.
    package static func returnLargeBlocksToTheSystem() {
        #if canImport(Glibc)
        _ = mallopt(bd_malloc_mmap_threshold, 1 << 20)
        #endif
    }

    /// Returns the free memory of the calling thread's heap to the system. The encoders (libaom above all) free many
    /// blocks below the mapping threshold after each large image; left in the heap they kept about 100 MB resident
    /// beyond the memory caches' budgets after a run of 2048-pixel renders. Called after large render jobs, on the pool
    /// thread that ran them (a few hundred microseconds, against tens of milliseconds of work).
    static func returnFreeMemory() {
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
    }
}
