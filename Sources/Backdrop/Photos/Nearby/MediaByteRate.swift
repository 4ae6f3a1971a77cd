import Synchronization

/// The bytes a second a source's media hosts are read at, by every download of the source together: Wikimedia's robot
/// policy asks clients of its media hosts to stay within 25 Mbps (`commons.mediaMbps`).
///
/// A token bucket that holds one second's bytes. A download takes the bytes of each chunk as it arrives; once the bucket
/// is empty, the reader waits until the rate has paid for what it took (the debt is shared, so concurrent readers wait
/// in turn). While a reader waits it reads nothing, and TCP slows the host down. A photo that fits in the bucket is read
/// at once when the hosts have been quiet for a second; steady traffic averages the rate, and no second carries more
/// than two seconds' bytes.
final class MediaByteRate: Sendable {
    private struct State {
        var tokens: Double
        var last: ContinuousClock.Instant
        /// How long readers were asked to wait, all told (for tests and the benchmark).
        var waited = Duration.zero
    }

    let bytesPerSecond: Double
    let burst: Double
    private let state: Mutex<State>

    /// A rate of `megabits` a second (10⁶ bits), with one second's bytes to start.
    convenience init(megabitsPerSecond megabits: Int) {
        let bytes = Double(megabits) * 125_000
        self.init(bytesPerSecond: bytes, burst: bytes)
    }

    init(bytesPerSecond: Double, burst: Double, now: ContinuousClock.Instant = .now) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.burst = max(1, burst)
        self.state = Mutex(State(tokens: self.burst, last: now))
    }

    /// How long readers were asked to wait, all told.
    var waited: Duration { self.state.withLock { $0.waited } }

    /// Takes `bytes` read at `now`; how long the reader is to wait before it reads on (zero while the bucket holds them).
    func take(_ bytes: Int, at now: ContinuousClock.Instant) -> Duration {
        self.state.withLock { state in
            if now > state.last {
                let seconds = Double((now - state.last) / .nanoseconds(1)) / 1e9
                state.tokens = min(self.burst, state.tokens + seconds * self.bytesPerSecond)
                state.last = now
            }
            state.tokens -= Double(bytes)
            guard state.tokens < 0 else { return .zero }
            let wait = Duration.nanoseconds(Int64((-state.tokens / self.bytesPerSecond * 1e9).rounded(.up)))
            state.waited += wait
            return wait
        }
    }

    /// Takes `bytes` just read and waits as long as the rate asks; throws `CancellationError` when cancelled meanwhile.
    func spend(_ bytes: Int) async throws {
        let wait = self.take(bytes, at: .now)
        if wait > .zero { try await Task.sleep(for: wait) }
    }
}
