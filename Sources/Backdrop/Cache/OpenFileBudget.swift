import Synchronization

/// How many cache files may be held open for `sendfile` at once: well inside the process's descriptor limit, which
/// client connections share. Past it, and for small payloads, bodies are written from memory.
package final class OpenFileBudget: Sendable {
    /// Below this size one `writev` of head and body costs less than a `writev` plus a `sendfile`.
    package static let minimumPayload = 32 << 10

    package let limit: Int
    private let open = Atomic<Int>(0)

    package init(limit: Int) {
        self.limit = limit
    }

    package var count: Int { self.open.load(ordering: .relaxed) }

    func reserve() -> Bool {
        var current = self.open.load(ordering: .relaxed)
        while current < self.limit {
            let (exchanged, original) = self.open.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    func release() {
        self.open.subtract(1, ordering: .relaxed)
    }
}
