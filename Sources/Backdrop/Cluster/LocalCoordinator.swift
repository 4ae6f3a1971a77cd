import Foundation

/// One replica working alone (no database configured): the whole budget is its own, and it searches every cell itself.
struct LocalCoordinator: ClusterCoordinator, CellSharing {
    let budget: CallBudget
    let metrics: BackdropMetrics

    init(callsPerHour: Int, clock: any WallClock, metrics: BackdropMetrics) {
        self.budget = CallBudget(callsPerHour: callsPerHour, clock: clock)
        self.metrics = metrics
    }

    var status: ClusterStatus { .local }

    func sharing() -> any CellSharing { self }

    func takeCall() async -> Bool {
        let granted = await self.budget.take()
        self.metrics.quotaTokens(await self.budget.available)
        return granted
    }

    func claim(_ key: CellWindow) async throws -> CellClaim { .search }

    func publish(_ finding: Data, for key: CellWindow) async -> Data { finding }

    func publishFailure(for key: CellWindow, backoff: Double) async {}

    func publishKeyRejected(retryAfter: Double) async {}
}
