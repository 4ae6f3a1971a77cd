import Foundation
import Logging

/// What a searching source remembers between requests besides search results: whether its key was rejected, which
/// cells failed recently, and which of a cell's photos turned out unusable in a window.
actor SearchState {
    /// After a rejected key, one call a minute; after a failed search, the cell rests 30 s: as the replicas rest when
    /// another shares what it learned (``SharedSearch``).
    static let keyRetryInterval = SharedSearch.keyRetryInterval
    static let failureBackoff = SharedSearch.failureBackoff

    private let clock: any WallClock
    private var keyRejectedAt: Date?
    /// No cell is searched before this: the network is gone, or the source asked for a pause.
    private var pausedUntil: Date?
    /// Cells not to be searched here before the date: after a failure, or while another replica's lease runs.
    private var retryAt = [CellWindow: Date]()
    private var unusable = [CellWindow: Set<String>]()
    /// Photos whose pixels show people (``PhotoContent/showsPeople``): ranked as such from then on. Photo ids, at most
    /// ``peopleKept`` (then forgotten all at once: each is found again when next tried).
    private(set) var people = Set<String>()
    static let peopleKept = 4096
    /// How many photos were found to show people in each cell's window.
    private var peopleFound = [CellWindow: Int]()
    /// The window in which each cell's results waiting for looks were last read from the cluster (``CellResults``).
    private var reads = [CellWindow: Int64]()
    /// Requests that began waiting on this source's lookup of a cell-window and have not finished it: the ones whose
    /// wait a deadline cut short stay counted until their fallback takes them (``takeInterruptedWait(_:)``).
    private var waits = [CellWindow: Int]()

    init(clock: any WallClock) {
        self.clock = clock
    }

    /// Whether the source may be asked about `key` now. After the key was rejected, one caller a minute is let through.
    func mayCall(_ key: CellWindow) -> Bool {
        let now = self.clock.now()
        if let rejected = self.keyRejectedAt {
            guard now.timeIntervalSince(rejected) >= Self.keyRetryInterval else { return false }
            self.keyRejectedAt = now  // this caller retries the key; others wait another minute
        }
        if let retry = self.retryAt[key], now < retry { return false }
        if let paused = self.pausedUntil, now < paused { return false }
        return true
    }

    /// Records a failed search; returns true when this is the key's first rejection (to be logged once).
    func noteFailure(keyRejected: Bool, for key: CellWindow) -> Bool {
        let now = self.clock.now()
        if keyRejected {
            let first = self.keyRejectedAt == nil
            self.keyRejectedAt = now
            return first
        }
        self.prune(before: key.window)
        self.retryAt[key] = now.addingTimeInterval(Self.failureBackoff)
        return false
    }

    /// Leaves every cell alone for `seconds` (a finite, positive number); a pause already running longer is kept.
    func pause(_ seconds: Double) {
        guard seconds.isFinite, seconds > 0 else { return }
        let until = self.clock.now().addingTimeInterval(seconds)
        self.pausedUntil = max(self.pausedUntil ?? until, until)
    }

    /// A request begins waiting on this source's lookup of `key`.
    func beginWait(_ key: CellWindow) {
        self.prune(before: key.window)
        self.waits[key, default: 0] += 1
    }

    /// A request's wait on `key` ended with an answer (found, empty or failed), not cut short.
    func endWait(_ key: CellWindow) {
        self.waits[key] = (self.waits[key] ?? 1) > 1 ? (self.waits[key] ?? 1) - 1 : nil
    }

    /// Whether a request's wait on `key` was cut short (by its deadline) and not yet accounted for; takes one.
    func takeInterruptedWait(_ key: CellWindow) -> Bool {
        guard self.waits[key] != nil else { return false }
        self.endWait(key)
        return true
    }

    /// Records that a request gave up waiting on `key` (its deadline passed). When it was waiting on another
    /// replica's lease (ending at `leaseUntil`), the cell waits for that lease's end and no longer: then this replica
    /// takes the search over. Otherwise (this replica's own search or download hung) it backs off as after a failure.
    func noteTimeout(for key: CellWindow, leaseUntil: Date? = nil) {
        self.prune(before: key.window)
        let now = self.clock.now()
        if let until = leaseUntil, until > now {
            self.retryAt[key] = until
        } else {
            self.retryAt[key] = now.addingTimeInterval(Self.failureBackoff)
        }
    }

    /// Returns true when the key had been rejected before (so its recovery can be logged).
    func noteSuccess(for key: CellWindow) -> Bool {
        self.retryAt[key] = nil
        defer { self.keyRejectedAt = nil }
        return self.keyRejectedAt != nil
    }

    /// The ids of the cell's photos that proved unusable in the window.
    func unusable(_ key: CellWindow) -> Set<String> { self.unusable[key] ?? [] }

    func markUnusable(_ key: CellWindow, photoID: String) {
        self.prune(before: key.window)
        self.unusable[key, default: []].insert(photoID)
    }

    /// Notes that `photoID` shows people, found in `key`'s window; returns how many were found there so far.
    func notePeople(photoID: String, in key: CellWindow) -> Int {
        self.prune(before: key.window)
        if self.people.count >= Self.peopleKept { self.people.removeAll() }
        self.people.insert(photoID)
        self.peopleFound[key, default: 0] += 1
        return self.peopleFound[key, default: 0]
    }

    /// Whether the results held under `key`, waiting for looks, are to be read again from the cluster before window
    /// `window` is ranked: once a window.
    func reread(_ key: CellWindow, in window: Int64) -> Bool {
        if self.reads.count > 4096 { self.reads = self.reads.filter { $0.value >= window - 96 } }
        guard (self.reads[key] ?? .min) < window else { return false }
        self.reads[key] = window
        return true
    }

    /// Forgets windows that have ended, so memory stays bounded.
    private func prune(before window: Int64) {
        if self.unusable.count > 4096 { self.unusable = self.unusable.filter { $0.key.window >= window } }
        if self.retryAt.count > 4096 { self.retryAt = self.retryAt.filter { $0.key.window >= window } }
        if self.peopleFound.count > 4096 { self.peopleFound = self.peopleFound.filter { $0.key.window >= window } }
        // A wait cut short by something other than the deadline (the client went) is never taken: past windows' go.
        if self.waits.count > 4096 { self.waits = self.waits.filter { $0.key.window >= window } }
    }
}
