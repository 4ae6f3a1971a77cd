/// The operation given to ``AbandonableWork/waitAtMost(_:_:)`` did not finish in time.
struct WaitTimedOut: Error {}

/// Calls into something that may hang without heeding cancellation (a database that stopped answering), run where
/// their callers need not wait for them: in child tasks of ``run()``, which the owning service runs for its lifetime.
/// A caller waits at most its timeout; the operation it leaves is cancelled and ends on its own, inside `run()`.
final class AbandonableWork: Sendable {
    private typealias Job = @Sendable () async -> Void
    private let jobs: AsyncStream<Job>
    private let submit: AsyncStream<Job>.Continuation

    init() {
        (self.jobs, self.submit) = AsyncStream.makeStream()
    }

    /// Runs each operation handed over, in a child task, until cancelled; then takes no more and waits for those still
    /// running (cancelled, they end once their connection is closed).
    func run() async {
        await withDiscardingTaskGroup { group in
            for await job in self.jobs {
                group.addTask { await job() }
            }
            self.submit.finish()
        }
    }

    /// Hands `operation` to ``run()`` and waits at most `timeout` for its result. The caller's own cancellation ends
    /// the wait at once too; either way the operation is then cancelled. Once `run()` has ended it throws
    /// `CancellationError` without running anything.
    func waitAtMost<T: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let outcome = OneShot<T>()
        let abandoned = OneShot<Void>()
        let handed = self.submit.yield {
            // The operation, until it ends or its caller stops waiting.
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        outcome.resume(with: .success(try await operation()))
                    } catch {
                        outcome.resume(with: .failure(error))
                    }
                }
                group.addTask { _ = try? await abandoned.wait() }
                await group.next()
                group.cancelAll()
            }
        }
        defer { abandoned.resume(with: .success(())) }
        if case .terminated = handed { throw CancellationError() }
        do {
            return try await withDeadline(timeout) { try await outcome.wait() }
        } catch is DeadlinePassed {
            throw WaitTimedOut()
        }
    }
}
