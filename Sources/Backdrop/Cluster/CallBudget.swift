import Foundation

/// A token bucket over a source's calls (`flickr.callsPerHour`, `commons.callsPerHour`): full at start, refilled
/// continuously.
actor CallBudget {
    private let capacity: Double
    private let perSecond: Double
    private let clock: any WallClock
    private var tokens: Double
    private var updated: Date

    package init(callsPerHour: Int, clock: any WallClock) {
        self.capacity = Double(callsPerHour)
        self.perSecond = Double(callsPerHour) / 3600
        self.clock = clock
        self.tokens = Double(callsPerHour)
        self.updated = clock.now()
    }

    /// Takes one call's token; false when the bucket is empty.
    package func take() -> Bool {
        self.refill()
        guard self.tokens >= 1 else { return false }
        self.tokens -= 1
        return true
    }

    package var available: Int {
        self.refill()
        return Int(total: self.tokens)
    }

    private func refill() {
        let now = self.clock.now()
        let elapsed = max(0, now.timeIntervalSince(self.updated))
        self.tokens = min(self.capacity, self.tokens + elapsed * self.perSecond)
        self.updated = now
    }
}
