import Synchronization
import Testing

@testable import Backdrop

@Suite("Abandonable work")
struct AbandonableWorkTests {
    /// Runs `body` beside a running `work`, then stops the runner.
    static func withRunner(_ body: @escaping @Sendable (AbandonableWork) async throws -> Void) async throws {
        let work = AbandonableWork()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await work.run() }
            try await body(work)
            group.cancelAll()
        }
    }

    @Test func anOperationsResultAndErrorComeBack() async throws {
        struct Refused: Error {}
        try await Self.withRunner { work in
            let answer = try await work.waitAtMost(.seconds(5)) { 42 }
            #expect(answer == 42)
            await #expect(throws: Refused.self) { try await work.waitAtMost(.seconds(5)) { () async throws -> Int in throw Refused() } }
        }
    }

    @Test func aHungOperationReleasesItsCallerAtTheTimeoutAndIsCancelled() async throws {
        // The operation ignores cancellation until `release`, which comes only after the caller is let go: so the caller
        // was let go by its timeout, not by the operation's end; and the operation, left running inside the runner, sees
        // that it was cancelled.
        let release = Gate()
        let cancelled = OneShot<Void>()
        try await Self.withRunner { work in
            await #expect(throws: WaitTimedOut.self) {
                try await work.waitAtMost(.milliseconds(200)) {
                    await withTaskCancellationHandler {
                        await release.wait()
                    } onCancel: {
                        cancelled.resume(with: .success(()))
                    }
                }
            }
            // Cancelled once its caller has gone (asynchronously, inside the runner); the bound only keeps a broken
            // build from hanging the suite.
            try await withDeadline(.seconds(60)) { try await cancelled.wait() }
            release.open()
        }
    }

    /// A wait that ignores cancellation: it ends when opened, and only then.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

        func wait() async {
            await withCheckedContinuation { continuation in
                let open = self.state.withLock { state in
                    if !state.open { state.waiter = continuation }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            let waiter = self.state.withLock { state in
                state.open = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    @Test func nothingRunsOnceTheRunnerHasEnded() async throws {
        let work = AbandonableWork()
        await withDiscardingTaskGroup { group in
            group.addTask { await work.run() }
            group.cancelAll()
        }
        let ran = Mutex(false)
        await #expect(throws: CancellationError.self) { try await work.waitAtMost(.seconds(5)) { ran.withLock { $0 = true } } }
        #expect(!ran.withLock { $0 })
    }
}
