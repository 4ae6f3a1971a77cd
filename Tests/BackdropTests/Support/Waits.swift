import Foundation
import Synchronization
import Testing

@testable import Backdrop

/// A thread-safe count, shareable between tasks.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { self.count.withLock { $0 += 1 } }
    var value: Int { self.count.withLock { $0 } }
}

/// A wait in a test that ran out of time: what it waited for.
struct WaitTimedOut: Error, CustomStringConvertible {
    let description: String
}

/// Waits until `condition` holds, yielding between checks, for at most `limit`: a generous deadline whose failure means
/// a hang, not slowness.
func waitUntil(_ what: String, limit: Duration = .seconds(30), _ condition: () async -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while await !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimedOut(description: "waited \(limit) for \(what)") }
        await Task.yield()
    }
}
