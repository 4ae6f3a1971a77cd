import Synchronization

/// What is left of the time one request may spend waiting on the database (`cluster.timeoutSeconds`), across every
/// query it makes; time spent elsewhere (waiting out another replica's lease) does not count. Spent, the request goes
/// on with the replica's local state.
final class DatabaseAllowance: Sendable {
    private let remaining: Mutex<Duration>

    init(_ total: Duration) {
        self.remaining = Mutex(total)
    }

    /// Runs `body` with what is left, and takes the time it took from it.
    func spend<T>(_ body: (Duration) async -> T) async -> T {
        let left = self.remaining.withLock { $0 }
        let started = ContinuousClock.now
        defer {
            let spent = ContinuousClock.now - started
            self.remaining.withLock { $0 -= spent }
        }
        return await body(left)
    }
}
