import Logging
import Synchronization

/// Requests refused because the render queue is full (503), logged as one summary line per interval instead of one
/// line each: under overload, per-request lines would cost more than the answers. Every one is still counted in the
/// request metrics.
final class ShedSummary: Sendable {
    let interval: Duration
    private let state: Mutex<(count: Int, since: ContinuousClock.Instant)>

    init(interval: Duration = .seconds(10)) {
        self.interval = interval
        self.state = Mutex((0, .now))
    }

    /// Counts one refused request; logs the interval's total once the interval has passed.
    func record(logger: Logger) {
        let now = ContinuousClock.now
        let due = self.state.withLock { state -> (Int, Duration)? in
            state.count += 1
            let elapsed = now - state.since
            guard elapsed >= self.interval else { return nil }
            defer { state = (0, now) }
            return (state.count, elapsed)
        }
        if let (count, elapsed) = due {
            logger.warning(
                "overloaded: requests refused with 503 (render queue full)",
                metadata: ["count": "\(count)", "seconds": "\(elapsed.components.seconds)"]
            )
        }
    }
}
