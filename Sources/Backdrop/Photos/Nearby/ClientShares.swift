import Foundation
import Synchronization

/// Each client's share of a budget: a source's calls for new cells, so that one client asking for cell after cell (a
/// scan of the open sea) cannot spend the budget every other client's new cells need (its new cells get the next source
/// in line, or stock; cells already searched, by anyone, cost nothing and are never refused); and Commons' media
/// requests for its requests' photos (``ImageDownloader/download(_:for:)``), the same way.
///
/// - *Small:* a client's share is a tenth of the source's hourly budget (``fraction``), at least one call.
/// - *A client is a network:* IPv4 by /24 and IPv6 by /48 (``network(_:)``), so that one host's neighbouring addresses
///   are one client; coarser when `server.clientPrefixIPv4`/`IPv6` already cut wider. A request with no peer address
///   (none reaches a server from a socket) is not counted.
/// - *Reserved before the call, atomically:* a search reserves one call of the share before it claims the cell, and the
///   reservation is given back when no call was made (another replica's results, a failure before the call), so a burst
///   of concurrent new cells takes no more than the share.
/// - *Beside the budget:* kept in the cluster database when there is one (the share of all replicas together, in the
///   budget's minute slots: ``CellSharing/takeShare(_:perHour:)``), else, or while the database cannot answer, in this
///   replica (``LocalShares``).
/// - *Over a sliding hour:* the calls of the last 61 minutes, counted by the minute, as the budget's.
struct ClientShares: Sendable {
    /// The share is spent: the line asks the next source (never an error, never a failure shared with the cell).
    struct Spent: Error {}

    /// One reserved call: made (``used()``) by the search's first granted call, else given back.
    final class Reservation: Sendable {
        let network: String?
        let local: Bool
        private let calls = Mutex(0)

        init(network: String?, local: Bool) {
            self.network = network
            self.local = local
        }

        /// Counts a granted call; true for the first (the reserved one).
        func used() -> Bool {
            self.calls.withLock { calls in
                calls += 1
                return calls == 1
            }
        }

        var made: Bool { self.calls.withLock { $0 > 0 } }
    }

    static let fraction = 10
    /// Calls one client's searches may take in an hour.
    let perClient: Int
    /// The budget's name: the shares' names in the cluster start with it.
    let budget: String
    let local: LocalShares

    init(budget: String, callsPerHour: Int, clock: any WallClock) {
        self.perClient = max(1, callsPerHour / Self.fraction)
        self.budget = budget
        self.local = LocalShares(clock: clock)
    }

    /// A call reserved from `client`'s share through `sharing`, or nil when the share is spent.
    func reserve(_ client: RequestClient, through sharing: any CellSharing) async -> Reservation? {
        guard let network = Self.network(client) else { return Reservation(network: nil, local: true) }
        if let granted = await sharing.takeShare(self.name(network), perHour: self.perClient) {
            return granted ? Reservation(network: network, local: false) : nil
        }
        return await self.local.take(network, perHour: self.perClient) ? Reservation(network: network, local: true) : nil
    }

    /// Gives `reservation` back when the search made no call.
    func settle(_ reservation: Reservation, through sharing: any CellSharing) async {
        guard !reservation.made, let network = reservation.network else { return }
        if reservation.local { await self.local.giveBack(network) } else { await sharing.returnShare(self.name(network)) }
    }

    /// A call beyond the reserved one (a search of several pages): counted, never refused.
    func charge(_ reservation: Reservation, through sharing: any CellSharing) async {
        guard let network = reservation.network else { return }
        if reservation.local {
            await self.local.count(network)
        } else {
            _ = await sharing.takeShare(self.name(network), perHour: Int.max / 2)
        }
    }

    private func name(_ network: String) -> String { "share/\(self.budget)/\(network)" }

    /// The network a client's share is counted for: its IPv4 /24 or IPv6 /48; nil for a request with no address.
    static func network(_ client: RequestClient) -> String? {
        guard client != .unknown else { return nil }
        let address = client.name.split(separator: "/").first.map(String.init) ?? client.name
        guard let bytes = IPRange.bytes(address) else { return client.name }
        return IPRange.text(bytes, prefix: bytes.count == 4 ? 24 : 48)
    }
}

/// A request's sharing with the other replicas, each call it is granted charged to its client's share: the first to
/// the call reserved before the search.
struct ChargedSharing: CellSharing {
    let inner: any CellSharing
    let shares: ClientShares
    let reservation: ClientShares.Reservation

    func takeCall() async -> Bool {
        let granted = await self.inner.takeCall()
        if granted, !self.reservation.used() { await self.shares.charge(self.reservation, through: self.inner) }
        return granted
    }

    func claim(_ key: CellWindow) async throws -> CellClaim { try await self.inner.claim(key) }
    func publish(_ results: Data, for key: CellWindow) async -> Data { await self.inner.publish(results, for: key) }
    func read(_ key: CellWindow) async -> Data? { await self.inner.read(key) }
    func publishLooks(_ results: Data, for key: CellWindow) async -> Data? { await self.inner.publishLooks(results, for: key) }
    func publishFailure(for key: CellWindow, backoff: Double) async { await self.inner.publishFailure(for: key, backoff: backoff) }
    func publishKeyRejected(retryAfter: Double) async { await self.inner.publishKeyRejected(retryAfter: retryAfter) }
    func takeShare(_ name: String, perHour: Int) async -> Bool? { await self.inner.takeShare(name, perHour: perHour) }
    func returnShare(_ name: String) async { await self.inner.returnShare(name) }
}
