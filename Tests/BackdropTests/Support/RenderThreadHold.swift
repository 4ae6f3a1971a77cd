import Foundation
import NIOPosix
import Synchronization
import Testing

@testable import Backdrop

/// Runs `body` while the test holds the thread of the process's one-thread render pool (``RenderThreads``, which a
/// server with `render.workers` 1 renders on): a render admitted meanwhile counts as running and waits, and later ones
/// queue behind it, until `body` calls `release` (or ends; or a minute passes). Requests made to overlap, not hoped to.
/// Tests that hold the thread take turns (``RenderThreadTurns``): one never waits for the thread behind another's
/// queue of renders, which on a loaded machine can take longer than any fair wait.
func withRenderThreadHeld<T: Sendable>(_ body: (_ release: @escaping @Sendable () -> Void) async throws -> T) async throws -> T {
    try await RenderThreadTurns.shared.take(limit: .seconds(60))
    defer { RenderThreadTurns.shared.give() }
    let latch = Latch()
    let holding = Counter()
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            try await RenderThreads.pool(workers: 1).runIfActive {
                holding.increment()
                latch.wait()
            }
        }
        do {
            try await waitUntil("the test to hold the render thread", limit: .seconds(20)) { holding.value == 1 }
            let result = try await body(latch.release)
            latch.release()
            try await group.waitForAll()
            return result
        } catch {
            latch.release()  // a failed test lets the held jobs go
            throw error
        }
    }
}

/// One test at a time holds the one-thread render pool: a turn is taken by checking every 10 ms, for at most `limit`
/// (the tests before it in line end within their own bounded waits).
final class RenderThreadTurns: Sendable {
    static let shared = RenderThreadTurns()
    private let taken = Mutex(false)

    func take(limit: Duration) async throws {
        let deadline = ContinuousClock.now + limit
        while !self.taken.withLock({ taken in
            let free = !taken
            taken = true
            return free
        }) {
            guard ContinuousClock.now < deadline else { throw WaitTimedOut(description: "waited \(limit) for a turn to hold the render thread") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func give() { self.taken.withLock { $0 = false } }
}
