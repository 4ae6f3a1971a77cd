import Foundation

/// How a replica shares one source's work with the others: the source's call budget, one search per cell and window,
/// and what each replica learned (empty cells, failing cells, a rejected key). ``LocalCoordinator``
/// works alone, as one machine does; ``PostgresCoordinator`` shares through PostgreSQL and falls back to working alone
/// whenever the database cannot answer within what one request may wait on it.
protocol ClusterCoordinator: Sendable {
    /// The coordinator as one request uses it: every call it makes on the database waits, in all, at most
    /// `cluster.timeoutSeconds`; after that the request goes on with the replica's local state.
    func sharing() -> any CellSharing
}

/// What one request shares with the other replicas. Search results travel as the JSON their owner encodes: the cluster
/// stores and returns them, and knows nothing of photos.
protocol CellSharing: Sendable {
    /// Takes one call from the source's budget; false when it is spent.
    func takeCall() async -> Bool

    /// Whether to search the cell-window here, what another replica found or learned of it, or how long another
    /// replica's lease on it still runs (the caller looks again, within its own deadline); throws only
    /// `CancellationError`.
    func claim(_ key: CellWindow) async throws -> CellClaim

    /// Shares what this replica's search found; returns the results every replica serves (earlier ones if another
    /// replica published first).
    func publish(_ results: Data, for key: CellWindow) async -> Data

    /// The results published for `key`, if the cluster holds any (nil too when there is no cluster).
    func read(_ key: CellWindow) async -> Data?

    /// Adds the looks that came after `key`'s results were published (``CellResults``): replaces the published results if
    /// they still wait for looks. Returns the results the cluster holds now (nil when there is no cluster, or it cannot
    /// answer).
    func publishLooks(_ results: Data, for key: CellWindow) async -> Data?

    /// Takes one call from the share the cluster keeps under `name` (a client's: ``ClientShares``), at most `perHour` in
    /// the last hour; nil when there is no cluster or it cannot answer (the replica counts the share itself).
    func takeShare(_ name: String, perHour: Int) async -> Bool?

    /// Gives back the latest call taken from the share `name`.
    func returnShare(_ name: String) async

    /// Shares that the search of `key` failed, so that the others back off for `backoff` seconds too.
    func publishFailure(for key: CellWindow, backoff: Double) async

    /// Shares that the source rejected its key, so that the others wait `retryAfter` seconds before trying it again.
    func publishKeyRejected(retryAfter: Double) async
}

/// How a replica stands with the others, as `/health` reports it.
enum ClusterStatus: String, Sendable, Codable {
    /// No database configured: this replica works alone.
    case local
    /// Sharing budget, searches and discoveries through PostgreSQL.
    case postgres
    /// A database is configured but cannot be reached: working alone on a conservative share of the budget.
    case degraded
}
