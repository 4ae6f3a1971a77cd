/// The operation given to ``waitAtMost(_:_:)`` did not finish in time.
struct WaitTimedOut: Error {}

/// Runs `operation` in a task of its own and waits at most `timeout` for it. Unlike ``withDeadline(_:_:)`` it does not
/// wait for the operation to notice cancellation: a call into something that may hang without heeding it (a database
/// that stopped answering) cannot hold the caller. The abandoned operation is cancelled and left to finish on its own.
/// The caller's own cancellation ends the wait at once too.
func waitAtMost<T: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = OneShot<T>()
    let work = Task {
        do {
            outcome.resume(with: .success(try await operation()))
        } catch {
            outcome.resume(with: .failure(error))
        }
    }
    let timer = Task {
        try? await Task.sleep(for: timeout)
        outcome.resume(with: .failure(WaitTimedOut()))
    }
    defer {
        timer.cancel()
        work.cancel()
    }
    return try await outcome.wait()
}
