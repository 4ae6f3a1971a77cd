/// How a replica shares its Flickr work with the others using the same API key: the key's call budget, one search per
/// cell and window, and what each replica learned (empty cells, failing cells, a rejected key). ``LocalCoordinator``
/// works alone, as one machine does; ``PostgresCoordinator`` shares through PostgreSQL and falls back to working alone
/// whenever the database cannot answer within the request's ``DatabaseAllowance``.
protocol ClusterCoordinator: Sendable {
    var status: ClusterStatus { get async }

    /// A fresh allowance for one request's waits on the database.
    var requestAllowance: DatabaseAllowance { get }

    /// Takes one Flickr call from the key's budget; false when it is spent.
    func takeCall(_ allowance: inout DatabaseAllowance) async -> Bool

    /// Whether to search the cell-window here, what another replica found or learned of it, or how long another
    /// replica's lease on it still runs (the caller looks again, within its own deadline); throws only
    /// `CancellationError`.
    func claim(_ key: FlickrState.CellKey, _ allowance: inout DatabaseAllowance) async throws -> CellClaim

    /// Shares what this replica's search found; returns the finding every replica serves (an earlier one if another
    /// replica published first).
    func publish(_ finding: CellFinding, for key: FlickrState.CellKey, _ allowance: inout DatabaseAllowance) async -> CellFinding

    /// Shares that the search of `key` failed, so that the others back off for `backoff` seconds too.
    func publishFailure(for key: FlickrState.CellKey, backoff: Double, _ allowance: inout DatabaseAllowance) async

    /// Shares that Flickr rejected the API key, so that the others wait `retryAfter` seconds before trying it again.
    func publishKeyRejected(retryAfter: Double, _ allowance: inout DatabaseAllowance) async
}
