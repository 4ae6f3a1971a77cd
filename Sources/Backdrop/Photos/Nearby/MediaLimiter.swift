import Synchronization

/// At most `limit` requests in flight to a source's media hosts together, whoever asks: photo downloads, thumbnails
/// for looks, every concurrent search and request. Wikimedia's robot policy asks clients of its media hosts to keep a
/// total concurrency of 2 (`commons.mediaConcurrency`); Flickr's image hosts have a limiter of their own. Waiters are
/// served in turn; one cancelled while waiting leaves the queue and takes no place.
final class MediaLimiter: Sendable {
    private struct State {
        var inFlight = 0
        var waiters = [(id: Int, continuation: CheckedContinuation<Void, any Error>)]()
        var nextID = 0
        /// The most ever in flight at once (for tests and metrics).
        var most = 0
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The most requests that were ever in flight at once.
    var most: Int { self.state.withLock { $0.most } }

    /// `body` once a place is free; throws `CancellationError` when cancelled while waiting.
    func run<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        try await self.acquire()
        defer { self.release() }
        return try await body()
    }

    private func acquire() async throws {
        try Task.checkCancellation()
        let id: Int? = self.state.withLock { state in
            guard state.inFlight >= self.limit else {
                state.inFlight += 1
                state.most = max(state.most, state.inFlight)
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let queued = self.state.withLock { state in
                    // A place may have been freed, or the task cancelled, since the first look.
                    if Task.isCancelled { return false }
                    if state.inFlight < self.limit {
                        state.inFlight += 1
                        state.most = max(state.most, state.inFlight)
                        continuation.resume()
                        return true
                    }
                    state.waiters.append((id, continuation))
                    return true
                }
                if !queued { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = self.state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// A place freed: the next waiter takes it.
    private func release() {
        let next = self.state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiters.isEmpty else {
                state.inFlight -= 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}
