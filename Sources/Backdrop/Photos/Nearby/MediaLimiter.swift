import Synchronization

/// At most `limit` requests in flight to a source's media hosts together, whoever asks: photo downloads, thumbnails
/// for looks, every concurrent search and request. Wikimedia's robot policy asks clients of its media hosts to keep a
/// total concurrency of 2 (`commons.mediaConcurrency`); Flickr's image hosts have a limiter of their own.
///
/// Two lanes: a request's own downloads (``Lane/answer``) and the work done after answers (``Lane/background``: looks).
/// The background waits while an answer's download is in flight or waiting (unless it has waited ``patience``, so that
/// steady traffic does not starve it), and holds at most `limit - 1` places (one when the limit is 1): a new place's
/// first answer shares the hosts with at most one thumbnail, started before its photo was asked for. Within a lane
/// waiters are served in turn; one cancelled while waiting leaves the queue and takes no place.
final class MediaLimiter: Sendable {
    enum Lane: Sendable { case answer, background }

    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Void, any Error>
        let since = ContinuousClock.now
    }

    private struct State {
        var inFlight = 0
        var background = 0
        var answers = [Waiter]()
        var later = [Waiter]()
        var nextID = 0
        /// The most ever in flight at once (for tests and metrics).
        var most = 0

        /// Takes a place for `lane` if one is free to it now.
        mutating func take(_ lane: Lane, limit: Int, backgroundLimit: Int) -> Bool {
            guard self.inFlight < limit else { return false }
            if lane == .background {
                guard self.background < backgroundLimit, self.answers.isEmpty, self.inFlight == self.background else { return false }
                self.background += 1
            }
            self.inFlight += 1
            self.most = max(self.most, self.inFlight)
            return true
        }
    }

    /// How long the background waits for answers' downloads at most, once its turn is due.
    static let patience = Duration.seconds(2)

    let limit: Int
    let backgroundLimit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(1, limit)
        self.backgroundLimit = max(1, self.limit - 1)
    }

    /// The most requests that were ever in flight at once.
    var most: Int { self.state.withLock { $0.most } }

    /// `body` once a place is free to `lane`; throws `CancellationError` when cancelled while waiting.
    func run<Result: Sendable>(_ lane: Lane = .answer, _ body: () async throws -> Result) async throws -> Result {
        try await self.acquire(lane)
        defer { self.release(lane) }
        return try await body()
    }

    private func acquire(_ lane: Lane) async throws {
        try Task.checkCancellation()
        let id: Int? = self.state.withLock { state in
            guard !state.take(lane, limit: self.limit, backgroundLimit: self.backgroundLimit) else { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let queued = self.state.withLock { state in
                    // A place may have been freed, or the task cancelled, since the first look.
                    if Task.isCancelled { return false }
                    if state.take(lane, limit: self.limit, backgroundLimit: self.backgroundLimit) {
                        continuation.resume()
                        return true
                    }
                    if lane == .answer { state.answers.append(Waiter(id: id, continuation: continuation)) }
                    if lane == .background { state.later.append(Waiter(id: id, continuation: continuation)) }
                    return true
                }
                if !queued { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = self.state.withLock { state -> Waiter? in
                if let index = state.answers.firstIndex(where: { $0.id == id }) { return state.answers.remove(at: index) }
                if let index = state.later.firstIndex(where: { $0.id == id }) { return state.later.remove(at: index) }
                return nil
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// A place freed: waiting answers take the free places first, then the background as far as its share allows.
    private func release(_ lane: Lane) {
        let next = self.state.withLock { state -> [Waiter] in
            state.inFlight -= 1
            if lane == .background { state.background -= 1 }
            var next = [Waiter]()
            while state.inFlight < self.limit, !state.answers.isEmpty {
                next.append(state.answers.removeFirst())
                state.inFlight += 1
            }
            while state.inFlight < self.limit, state.background < self.backgroundLimit, state.answers.isEmpty,
                let first = state.later.first,
                state.inFlight == state.background || ContinuousClock.now - first.since >= Self.patience
            {
                next.append(state.later.removeFirst())
                state.inFlight += 1
                state.background += 1
            }
            state.most = max(state.most, state.inFlight)
            return next
        }
        for waiter in next { waiter.continuation.resume() }
    }
}
