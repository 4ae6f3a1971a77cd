import Synchronization

/// How many cache files may be held open for `sendfile` at once: well inside the process's descriptor limit, which
/// client connections share. Past it, and for small payloads, bodies are written from memory.
public final class OpenFileBudget: Sendable {
    /// Below this size one `writev` of head and body costs less than a `writev` plus a `sendfile`.
    public static let minimumPayload = 32 << 10

    public let limit: Int
    private let open = Atomic<Int>(0)

    public init(limit: Int) {
        self.limit = limit
    }

    public var count: Int { self.open.load(ordering: .relaxed) }

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
