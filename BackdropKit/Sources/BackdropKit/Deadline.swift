import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One exchange with a bound on how long it may take in all. URLSession's own timeout restarts with every byte, so a
/// server that trickles would hold a call for ever without this. The data task is driven by its completion handler,
/// not URLSession's async `data(for:)`: on Linux, cancelling that one while its answer arrives deadlocks
/// FoundationNetworking (the task's cancellation handler waits on the session's queue, whose completion waits on the
/// task). Here a task is cancelled from a queue of its own, never from a cancellation handler, and the caller never
/// waits for the cancelled task to end.
struct Deadline: Sendable {
    let seconds: TimeInterval
    /// Told +1 when this deadline's timer is armed and -1 when it is cancelled, when given: the sum is back to zero
    /// once every call has ended. Each caller that watches passes its own, so that no other call's timer is counted.
    let armed: (@Sendable (Int) -> Void)?

    init(seconds: TimeInterval, armed: (@Sendable (Int) -> Void)? = nil) {
        self.seconds = seconds
        self.armed = armed
    }

    /// `request`'s answer through `session`, or ``BackdropError/timedOut(seconds:)`` once `seconds` have passed.
    func exchange(_ request: URLRequest, session: URLSession) async throws(BackdropError) -> (Data, URLResponse) {
        let nanoseconds = UInt64(max(0, min(self.seconds, 86_400)) * 1_000_000_000)
        let (seconds, armed) = (self.seconds, self.armed)
        let outcome = Outcome<(Data, URLResponse)>()
        let result: Result<(Data, URLResponse), BackdropError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                outcome.start(continuation)
                let task = session.dataTask(with: request) { data, response, error in
                    if let data, let response, error == nil {
                        outcome.finish(.success((data, response)), cancelsWork: false)
                    } else {
                        outcome.finish(.failure(BackdropError(error ?? URLError(.badServerResponse), timeout: seconds)), cancelsWork: false)
                    }
                }
                outcome.onCancel { DispatchQueue.global().async { task.cancel() } }
                // The deadline: a timer that the first outcome cancels, so that a call that ends leaves nothing behind.
                let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
                timer.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)))
                timer.setEventHandler { outcome.finish(.failure(.timedOut(seconds: seconds)), cancelsWork: true) }
                timer.setCancelHandler { armed?(-1) }
                armed?(1)
                let held = ArmedTimer(timer: timer)
                outcome.onFinish { held.timer.cancel() }
                timer.resume()
                task.resume()
            }
        } onCancel: {
            outcome.finish(.failure(.cancelled), cancelsWork: true)
        }
        return try result.get()
    }
}

/// The first of the answer, the deadline and the caller's cancellation, handed to the waiting caller once.
private final class Outcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Result<T, BackdropError>, Never>?
    private var result: Result<T, BackdropError>?
    private var cancelWork: (@Sendable () -> Void)?
    private var finished: [@Sendable () -> Void] = []

    func start(_ continuation: CheckedContinuation<Result<T, BackdropError>, Never>) {
        self.lock.lock()
        guard let result = self.result else {
            self.continuation = continuation
            self.lock.unlock()
            return
        }
        self.lock.unlock()
        continuation.resume(returning: result)  // the caller was cancelled before it began
    }

    /// What stops the work when the outcome is not its own answer (run at once if that is already so).
    func onCancel(_ cancel: @escaping @Sendable () -> Void) {
        self.lock.lock()
        guard self.result != nil else {
            self.cancelWork = cancel
            self.lock.unlock()
            return
        }
        self.lock.unlock()
        cancel()
    }

    /// What to do once there is an outcome, whichever it is (run at once if there is one already).
    func onFinish(_ action: @escaping @Sendable () -> Void) {
        self.lock.lock()
        guard self.result != nil else {
            self.finished.append(action)
            self.lock.unlock()
            return
        }
        self.lock.unlock()
        action()
    }

    func finish(_ result: Result<T, BackdropError>, cancelsWork: Bool) {
        self.lock.lock()
        guard self.result == nil else {
            self.lock.unlock()
            return
        }
        self.result = result
        let (continuation, cancel, finished) = (self.continuation, self.cancelWork, self.finished)
        self.continuation = nil
        self.cancelWork = nil
        self.finished = []
        self.lock.unlock()
        continuation?.resume(returning: result)
        if cancelsWork { cancel?() }
        for action in finished { action() }
    }
}

/// A dispatch timer, whose `cancel()` may be called from any thread (Dispatch does not mark it `Sendable` on Linux).
private struct ArmedTimer: @unchecked Sendable {
    let timer: any DispatchSourceTimer
}
