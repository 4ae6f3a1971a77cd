@testable import Backdrop

extension MemoryLRU {
    /// Callers waiting for a computation of `key` in progress.
    func waiterCount(for key: Key) -> Int { self.waiting[key]?.count ?? 0 }
}
