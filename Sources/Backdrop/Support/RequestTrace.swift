import Synchronization
import Tracing

/// What a request's work learns that its server span should say (a cache hit or miss, a fallback), noted from
/// wherever the work runs through the task-local ``current``; nil while tracing is off.
final class RequestTrace: Sendable {
    @TaskLocal static var current: RequestTrace?

    private let notes = Mutex<[(String, String)]>([])

    /// Sets `key` to `value` on the request's server span (the last note of a key wins).
    static func note(_ key: String, _ value: String) {
        self.current?.notes.withLock { $0.append((key, value)) }
    }

    func apply(to attributes: inout SpanAttributes) {
        for (key, value) in self.notes.withLock({ $0 }) { attributes[key] = value }
    }
}
