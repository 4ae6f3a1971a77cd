import Foundation

/// Each client's share of a source's calls for new cells: a client whose searches took ``perClient`` calls within its
/// hour starts no new search until that hour has passed, so that one client asking for cell after cell (a scan of the
/// open sea, 200 new cells an hour against Commons' 600 calls) cannot spend the budget every other client's new cells
/// need. Its new cells get the next source in line, or stock; cells already searched, by anyone, cost nothing and are
/// never refused. Clients are told apart as the render queue tells them (an IPv6 client is its /64); a request with no
/// peer address (none reaches a server from a socket) is not counted.
actor SearchShares {
    /// The share is spent: the line asks the next source (never an error, never a failure shared with the cell).
    struct Spent: Error {}

    /// Calls one client's searches may take in an hour: half of the source's budget.
    let perClient: Int
    private let clock: any WallClock
    private var used = [RenderClient: (since: Date, calls: Int)]()

    init(callsPerHour: Int, clock: any WallClock) {
        self.perClient = max(1, callsPerHour / 2)
        self.clock = clock
    }

    /// Whether `client` may start a search now.
    func mayStart(_ client: RenderClient) -> Bool {
        guard client != .unknown, let entry = self.current(client) else { return true }
        return entry.calls < self.perClient
    }

    /// Counts one call a search of `client`'s took.
    func charge(_ client: RenderClient) {
        guard client != .unknown else { return }
        let now = self.clock.now()
        if self.used.count > 4096 { self.used = self.used.filter { now.timeIntervalSince($0.value.since) < 3600 } }
        let entry = self.current(client) ?? (now, 0)
        self.used[client] = (entry.since, entry.calls + 1)
    }

    /// The client's count for the hour that began with its first counted call, if that hour is still running.
    private func current(_ client: RenderClient) -> (since: Date, calls: Int)? {
        guard let entry = self.used[client], self.clock.now().timeIntervalSince(entry.since) < 3600 else { return nil }
        return entry
    }
}

/// A request's sharing with the other replicas, each call it is granted charged to its client's share.
struct ChargedSharing: CellSharing {
    let inner: any CellSharing
    let shares: SearchShares
    let client: RenderClient

    func takeCall() async -> Bool {
        let granted = await self.inner.takeCall()
        if granted { await self.shares.charge(self.client) }
        return granted
    }

    func claim(_ key: CellWindow) async throws -> CellClaim { try await self.inner.claim(key) }
    func publish(_ results: Data, for key: CellWindow) async -> Data { await self.inner.publish(results, for: key) }
    func read(_ key: CellWindow) async -> Data? { await self.inner.read(key) }
    func publishLooks(_ results: Data, for key: CellWindow) async -> Data? { await self.inner.publishLooks(results, for: key) }
    func publishFailure(for key: CellWindow, backoff: Double) async { await self.inner.publishFailure(for: key, backoff: backoff) }
    func publishKeyRejected(retryAfter: Double) async { await self.inner.publishKeyRejected(retryAfter: retryAfter) }
}
