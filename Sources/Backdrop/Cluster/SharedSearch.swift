import Foundation

/// One search of a cell-window among the replicas: claim it, wait out another replica's lease, search here when the
/// claim says so, publish what was found (the finding published first is the one every replica serves), and share a
/// failure so that the others back off. It knows nothing of photos: findings travel as the JSON their source encodes.
struct SharedSearch: Sendable {
    /// The search cannot be made now because of what another replica learned moments ago.
    enum Refusal: Error {
        /// Its search of this cell failed.
        case failedElsewhere
        /// The source rejected the key.
        case keyRejectedElsewhere
    }

    let coordinator: any ClusterCoordinator
    let state: SearchState
    let clock: any WallClock
    let metrics: BackdropMetrics

    /// The first pause between looks at a cell-window whose lease another replica holds; it grows to ``longestPause``.
    static let firstPause: Duration = .milliseconds(10)
    static let longestPause: Duration = .milliseconds(200)

    /// What the cell holds for the window: another replica's finding (read by `read`; one that cannot be read is
    /// searched here), or `search`'s own, published. Throws ``Refusal``, `search`'s errors (shared with the others
    /// first: as a rejected key when `isKeyRejection` says so) and `CancellationError`.
    func finding<Finding>(
        _ key: CellWindow,
        read: (Data) -> Finding?,
        encode: (Finding) -> Data,
        isKeyRejection: (any Error) -> Bool,
        onUnreadable: () -> Void,
        search: (any CellSharing) async throws -> Finding
    ) async throws -> Finding {
        let shared = self.coordinator.sharing()
        let claim = try await withRequestSpan("cluster.claim") { span in
            span.attributes["backdrop.cell"] = key.cell
            let claim = try await self.claim(key, shared)
            span.attributes["backdrop.outcome"] = claim.label
            return claim
        }
        switch claim {
        case .found(let json):
            if let finding = read(json) { return finding }
            onUnreadable()
        case .failing:
            throw Refusal.failedElsewhere
        case .keyRejected:
            throw Refusal.keyRejectedElsewhere
        case .search, .wait:  // claim(_:_:) waits out every .wait itself
            break
        }
        do {
            let finding = try await search(shared)
            return read(await shared.publish(encode(finding), for: key)) ?? finding
        } catch  where isKeyRejection(error) {
            await shared.publishKeyRejected(retryAfter: SearchState.keyRetryInterval)
            throw error
        } catch {
            if !(error is CancellationError) && !Task.isCancelled {
                await shared.publishFailure(for: key, backoff: SearchState.failureBackoff)
            }
            throw error
        }
    }

    /// The coordinator's answer for the cell-window, looking again while another replica holds its lease (until this
    /// request's deadline cancels the wait). Each wait is noted, so that a request that gives up on the lease leaves
    /// the cell alone until the lease ends and no longer (``SearchState/noteTimeout(for:)``).
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
                try await Task.sleep(for: min(pause, .milliseconds(Int64(max(1, until.timeIntervalSince(now) * 1000)))))
                pause = min(pause * 2, Self.longestPause)
                continue
            }
            guard case .wait(let seconds) = claim else {
                // A wait on another replica's lease (by this request or an earlier one that gave up) ends here.
                if let since = await self.state.endLeaseWait(key) {
                    let waited = Duration.milliseconds(Int64(max(0, now.timeIntervalSince(since)) * 1000))
                    if case .search = claim { self.metrics.clusterLeaseWait("took_over", waited) }
                    if case .found = claim { self.metrics.clusterLeaseWait("shared", waited) }
                }
                return claim
            }
            leaseUntil = now.addingTimeInterval(seconds)
            await self.state.noteLeaseElsewhere(key, until: now.addingTimeInterval(seconds))
            try await Task.sleep(for: min(pause, .milliseconds(Int64(max(1, seconds * 1000)))))
            pause = min(pause * 2, Self.longestPause)
        }
    }
}
