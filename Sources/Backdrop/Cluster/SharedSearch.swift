import Foundation

/// One search of a cell-window among the replicas: claim it, wait out another replica's lease, search here when the
/// claim says so, publish its results (the results published first are the ones every replica serves), and share a
/// failure so that the others back off. It knows nothing of photos: results travel as the JSON their source encodes.
struct SharedSearch: Sendable {
    /// The search cannot be made now because of what another replica learned moments ago.
    enum Refusal: Error {
        /// Its search of this cell failed.
        case failedElsewhere
        /// The source rejected the key.
        case keyRejectedElsewhere
    }

    let coordinator: any ClusterCoordinator
    /// Whose lease this replica waits on, per cell-window.
    let leases: LeaseWaits
    let clock: any WallClock
    let metrics: BackdropMetrics

    init(coordinator: any ClusterCoordinator, clock: any WallClock, metrics: BackdropMetrics) {
        self.coordinator = coordinator
        self.leases = LeaseWaits(clock: clock)
        self.clock = clock
        self.metrics = metrics
    }

    /// The end of another replica's lease on `key`, as last seen by a request waiting on it (nil: none seen).
    func leaseEnd(_ key: CellWindow) async -> Date? { await self.leases.until(key) }

    /// How long the replicas leave the source alone after one shares that it rejected the key (then one call a minute
    /// tries it again), and a cell after one shares that its search failed.
    static let keyRetryInterval: TimeInterval = 60
    static let failureBackoff: TimeInterval = 30

    /// The first pause between looks at a cell-window whose lease another replica holds; it grows to ``longestPause``.
    static let firstPause: Duration = .milliseconds(10)
    static let longestPause: Duration = .milliseconds(200)

    /// What the cell holds for the window: another replica's results (read by `read`; results that cannot be read are
    /// searched again here), or `search`'s own, published. Throws ``Refusal``, `search`'s errors (shared with the others
    /// first: as a rejected key when `isKeyRejection` says so) and `CancellationError`.
    func results<Results>(
        _ key: CellWindow,
        read: (Data) -> Results?,
        encode: (Results) -> Data,
        isKeyRejection: (any Error) -> Bool,
        onUnreadable: () -> Void,
        search: (any CellSharing) async throws -> Results
    ) async throws -> Results {
        let shared = self.coordinator.sharing()
        let claim = try await withRequestSpan("cluster.claim") { span in
            span.attributes["backdrop.cell"] = key.cell
            let claim = try await self.claim(key, shared)
            span.attributes["backdrop.outcome"] = claim.label
            return claim
        }
        switch claim {
        case .found(let json):
            if let results = read(json) { return results }
            onUnreadable()
        case .failing:
            throw Refusal.failedElsewhere
        case .keyRejected:
            throw Refusal.keyRejectedElsewhere
        case .search, .wait:  // claim(_:_:) waits out every .wait itself
            break
        }
        do {
            let results = try await search(shared)
            return read(await shared.publish(encode(results), for: key)) ?? results
        } catch  where isKeyRejection(error) {
            await shared.publishKeyRejected(retryAfter: Self.keyRetryInterval)
            throw error
        } catch {
            if !(error is CancellationError) && !Task.isCancelled {
                await shared.publishFailure(for: key, backoff: Self.failureBackoff)
            }
            throw error
        }
    }

    /// The coordinator's answer for the cell-window, looking again while another replica holds its lease (until this
    /// request's deadline cancels the wait). Each wait is noted, so that a request that gives up on the lease leaves
    /// the cell alone until the lease ends and no longer (``leaseEnd(_:)``).
    private func claim(_ key: CellWindow, _ shared: any CellSharing) async throws -> CellClaim {
        var pause = Self.firstPause
        var leaseUntil: Date?
        while true {
            let claim = try await shared.claim(key)
            let now = self.clock.now()
            if case .search = claim, let until = leaseUntil, now < until {
                // The database granted no claim before the lease it reported ends: this is the replica going on alone
                // (the request's allowance of database time is spent, or the database is gone). Another replica's
                // lease is still honoured: wait it out, then search alone.
                try await Task.sleep(for: min(pause, .milliseconds(Int64(total: max(1, until.timeIntervalSince(now) * 1000)))))
                pause = min(pause * 2, Self.longestPause)
                continue
            }
            guard case .wait(let seconds) = claim else {
                // A wait on another replica's lease (by this request or an earlier one that gave up) ends here.
                if let since = await self.leases.end(key) {
                    let waited = Duration.milliseconds(Int64(total: max(0, now.timeIntervalSince(since)) * 1000))
                    if case .search = claim { self.metrics.clusterLeaseWait("took_over", waited) }
                    if case .found = claim { self.metrics.clusterLeaseWait("shared", waited) }
                }
                return claim
            }
            leaseUntil = now.addingTimeInterval(seconds)
            await self.leases.note(key, until: now.addingTimeInterval(seconds))
            try await Task.sleep(for: min(pause, .milliseconds(Int64(total: max(1, seconds * 1000)))))
            pause = min(pause * 2, Self.longestPause)
        }
    }
}
