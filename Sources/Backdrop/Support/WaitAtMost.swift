import Synchronization

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
            outcome.resume(.success(try await operation()))
        } catch {
            outcome.resume(.failure(error))
        }
    }
    let timer = Task {
        try? await Task.sleep(for: timeout)
        outcome.resume(.failure(WaitTimedOut()))
    }
    defer {
        timer.cancel()
        work.cancel()
    }
    return try await withTaskCancellationHandler {
        try await outcome.value()
    } onCancel: {
        outcome.resume(.failure(CancellationError()))
    }
}

/// A result delivered once, to one waiter, whether it arrives before or after the waiter suspends.
private final class OneShot<T: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<T, any Error>)
        case delivered(Result<T, any Error>)
        case finished
    }

    private let state = Mutex(State.idle)

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let early = self.state.withLock { state -> Result<T, any Error>? in
                switch state {
                case .delivered(let result):
                    state = .finished
                    return result
                case .idle:
                    state = .waiting(continuation)
                    return nil
                case .waiting, .finished:
                    return nil
                }
            }
            if let early { continuation.resume(with: early) }
        }
    }

    func resume(_ result: Result<T, any Error>) {
        let continuation = self.state.withLock { state -> CheckedContinuation<T, any Error>? in
            switch state {
            case .waiting(let continuation):
                state = .finished
                return continuation
            case .idle:
                state = .delivered(result)
                return nil
            case .delivered, .finished:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}
