import Foundation
import Synchronization

@testable import Backdrop

/// A job that holds its pool thread until the test lets it go.
final class Latch: Sendable {
    private let open = Mutex(false)
    func release() { self.open.withLock { $0 = true } }
    /// Holds the job until released, or for a minute at most (so that a failed test's jobs end).
    func wait() {
        let deadline = ContinuousClock.now + .seconds(60)
        while !self.open.withLock({ $0 }), ContinuousClock.now < deadline { usleep(1000) }
    }
}
