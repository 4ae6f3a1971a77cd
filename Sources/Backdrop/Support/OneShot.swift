import Synchronization

/// One result handed to one waiter, once: whether it is delivered before or after the waiter suspends, and whichever
/// comes first of the delivery and the waiter's cancellation (which delivers `CancellationError`). Later deliveries
/// are ignored.
final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case idle
        case suspended(CheckedContinuation<Value, any Error>)
        case resumed(Result<Value, any Error>)
        case finished
    }

    private let state = Mutex(State.idle)

    func wait() async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let early = self.state.withLock { state -> Result<Value, any Error>? in
                    switch state {
                    case .resumed(let result):
                        state = .finished
                        return result
                    case .idle:
                        state = .suspended(continuation)
                        return nil
                    case .suspended, .finished:
                        return nil
                    }
                }
                if let early { continuation.resume(with: early) }
            }
        } onCancel: {
            self.resume(with: .failure(CancellationError()))
        }
    }

    func resume(with result: Result<Value, any Error>) {
        let continuation = self.state.withLock { state -> CheckedContinuation<Value, any Error>? in
            switch state {
            case .suspended(let continuation):
                state = .finished
                return continuation
            case .idle:
                state = .resumed(result)
                return nil
            case .resumed, .finished:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}
