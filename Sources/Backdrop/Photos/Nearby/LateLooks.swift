import ServiceLifecycle
import Synchronization

/// The sources' work after the first answer: fetching the looks their searches did not wait for (``CandidateLooks``),
/// one cell at a time, as Wikimedia's etiquette asks of a client's requests. A queue the search fills and this service
/// drains until shutdown; at most ``capacity`` cells wait (a cell that finds the queue full keeps ranking without its
/// looks, as every replica does). Nothing waits on it but tests (``settled()``).
package final class LateLooks: Service, Sendable {
    typealias Job = @Sendable () async -> Void

    private struct State {
        /// Jobs queued and not yet finished.
        var open = 0
        var waiters = [CheckedContinuation<Void, Never>]()
    }

    static let capacity = 256

    private let stream: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation
    private let state = Mutex(State())

    package init() {
        (self.stream, self.continuation) = AsyncStream.makeStream(of: Job.self)
    }

    /// Queues `job`; false (and nothing queued) when ``capacity`` jobs already wait.
    @discardableResult
    func enqueue(_ job: @escaping Job) -> Bool {
        let taken = self.state.withLock { state in
            guard state.open < Self.capacity else { return false }
            state.open += 1
            return true
        }
        guard taken else { return false }
        if case .enqueued = self.continuation.yield(job) { return true }
        self.finished()  // the service has stopped: the job is dropped
        return false
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            for await job in self.stream {
                if !Task.isCancelled { await job() }
                self.finished()
            }
        }
        self.continuation.finish()
    }

    /// Returns once no job is queued or running (for tests: the looks of the searches made so far have come or failed).
    package func settled() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = self.state.withLock { state in
                guard state.open > 0 else { return true }
                state.waiters.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }

    private func finished() {
        let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open -= 1
            guard state.open == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
