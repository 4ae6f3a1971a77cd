import Foundation

/// When entries are done with: renders at the end of their window (or `renderLifetime` after writing), chosen photos
/// and source photos once they are too old to serve stale.
struct CachePolicy: Sendable {
    let windowSeconds: Int
    let renderLifetime: TimeInterval
    let maxStale: TimeInterval

    package init(windowSeconds: Int, renderLifetime: TimeInterval, maxStale: TimeInterval) {
        self.windowSeconds = windowSeconds
        self.renderLifetime = renderLifetime
        self.maxStale = maxStale
    }

    func isExpired(kind: CacheEntry.Kind, created: Date, window: Int64, now: Date) -> Bool {
        let age = now.timeIntervalSince(created)
        switch kind {
        case .render: return window < TimeWindow(containing: now, seconds: self.windowSeconds).index || age > self.renderLifetime
        case .photo, .source: return age > max(self.maxStale, TimeInterval(self.windowSeconds))
        }
    }
}

extension DiskCache {
    /// Removes every entry `policy` says is done with; returns how many.
    @discardableResult
    package func sweep(_ policy: CachePolicy) -> Int {
        let now = self.clock.now()
        return self.sweep { policy.isExpired(kind: $0, created: $1, window: $2, now: now) }
    }
}
