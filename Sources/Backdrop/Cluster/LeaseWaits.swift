import Foundation

/// Which cell-windows this replica waits on another replica's lease for: until when the lease runs, as last seen, and
/// since when this replica has waited (for `backdrop_cluster_lease_wait_seconds`).
actor LeaseWaits {
    private let clock: any WallClock
    private var waits = [CellWindow: (until: Date, since: Date)]()

    init(clock: any WallClock) {
        self.clock = clock
    }

    /// Records that another replica's lease on `key` runs until `until`.
    func note(_ key: CellWindow, until: Date) {
        if self.waits.count > 4096 { self.waits = self.waits.filter { $0.key.window >= key.window } }
        self.waits[key] = (until, self.waits[key]?.since ?? self.clock.now())
    }

    /// The end of the lease on `key` last seen, while a wait on it is recorded.
    func until(_ key: CellWindow) -> Date? { self.waits[key]?.until }

    /// The wait on another replica's lease on `key` is over (its result came, or this replica took the search over):
    /// since when this replica had been waiting, or nil if it had not.
    func end(_ key: CellWindow) -> Date? {
        self.waits.removeValue(forKey: key)?.since
    }
}
