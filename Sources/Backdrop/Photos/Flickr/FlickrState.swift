import Foundation
import Logging

/// What the Flickr source remembers between requests besides search results: whether the key was rejected,
/// which cells failed recently, and how many of a cell's photos turned out unusable in a window.
actor FlickrState {
    struct CellKey: Hashable, Sendable {
        let cell: String
        let window: Int64
    }

    static let keyRetryInterval: TimeInterval = 60
    static let failureBackoff: TimeInterval = 30

    private let clock: any WallClock
    private var keyRejectedAt: Date?
    private var failedAt = [CellKey: Date]()
    private var unusable = [CellKey: Int]()

    init(clock: any WallClock) {
        self.clock = clock
    }

    /// Whether Flickr may be asked about `key` now. After the key was rejected, one caller a minute is let through.
    func mayCall(_ key: CellKey) -> Bool {
        let now = self.clock.now()
        if let rejected = self.keyRejectedAt {
            guard now.timeIntervalSince(rejected) >= Self.keyRetryInterval else { return false }
            self.keyRejectedAt = now  // this caller retries the key; others wait another minute
        }
        if let failed = self.failedAt[key], now.timeIntervalSince(failed) < Self.failureBackoff { return false }
        return true
    }

    /// Records a failed search; returns true when this is the key's first rejection (to be logged once).
    func noteFailure(_ error: FlickrError, for key: CellKey) -> Bool {
        let now = self.clock.now()
        if error.kind == .invalidKey {
            let first = self.keyRejectedAt == nil
            self.keyRejectedAt = now
            return first
        }
        self.prune(before: key.window)
        self.failedAt[key] = now
        return false
    }

    /// Records that a request gave up waiting on `key` (its deadline passed): the cell backs off as after a failure.
    func noteTimeout(for key: CellKey) {
        self.prune(before: key.window)
        self.failedAt[key] = self.clock.now()
    }

    /// Returns true when the key had been rejected before (so its recovery can be logged).
    func noteSuccess(for key: CellKey) -> Bool {
        self.failedAt[key] = nil
        defer { self.keyRejectedAt = nil }
        return self.keyRejectedAt != nil
    }

    func unusableCount(_ key: CellKey) -> Int { self.unusable[key] ?? 0 }

    func markUnusable(_ key: CellKey) {
        self.prune(before: key.window)
        self.unusable[key, default: 0] += 1
    }

    /// Forgets windows that have ended, so memory stays bounded.
    private func prune(before window: Int64) {
        if self.unusable.count > 4096 { self.unusable = self.unusable.filter { $0.key.window >= window } }
        if self.failedAt.count > 4096 { self.failedAt = self.failedAt.filter { $0.key.window >= window } }
    }
}
