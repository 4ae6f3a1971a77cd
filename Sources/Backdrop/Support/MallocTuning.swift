#if canImport(Glibc)
import CMalloc
#endif

/// How the C allocator is set up for image work.
package enum MallocTuning {
    /// Blocks up to 32 MiB (every pixel buffer and encoder frame of a render, up to 2048x2048) come from the heap, and
    /// up to 32 MiB freed at the top of a thread's heap stays there: the next render reuses the pages the last one
    /// freed instead of having fresh ones mapped and zeroed by the kernel. With its own mapping for each block of 1 MiB
    /// or more, as before, an AVIF encode at 640x1136 took a third longer and the cover-crop twice as long (page
    /// faults). Both values are fixed because glibc's own threshold moves up as blocks are freed, after which the heap
    /// fragments unchecked; what a run of large renders leaves in it is returned by ``returnFreeMemory()``. Call once
    /// at start, before any large allocation.
    package static func configure() {
        #if canImport(Glibc)
        _ = mallopt(bd_malloc_mmap_threshold, Self.heapBlockLimit)
        _ = mallopt(bd_malloc_trim_threshold, Self.heapBlockLimit)
        #endif
    }

    static let heapBlockLimit: Int32 = 32 << 20

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
