/// One replica working alone (no database configured): the whole budget is its own, and it searches every cell itself.
struct LocalCoordinator: ClusterCoordinator {
    let budget: CallBudget
    let metrics: BackdropMetrics?

    init(callsPerHour: Int, clock: any WallClock, metrics: BackdropMetrics?) {
        self.budget = CallBudget(callsPerHour: callsPerHour, clock: clock)
        self.metrics = metrics
    }

    var status: ClusterStatus { .local }

    var requestAllowance: DatabaseAllowance { DatabaseAllowance(.zero) }

    func takeCall(_ allowance: inout DatabaseAllowance) async -> Bool {
        let granted = await self.budget.take()
        self.metrics?.quotaTokens(await self.budget.available)
        return granted
    }

    func claim(_ key: FlickrState.CellKey, _ allowance: inout DatabaseAllowance) async throws -> CellClaim { .search }

    func publish(_ finding: CellFinding, for key: FlickrState.CellKey, _ allowance: inout DatabaseAllowance) async -> CellFinding {
        finding
    }

    func publishFailure(for key: FlickrState.CellKey, backoff: Double, _ allowance: inout DatabaseAllowance) async {}

    func publishKeyRejected(retryAfter: Double, _ allowance: inout DatabaseAllowance) async {}
}
