import Foundation

/// One replica working alone (no database configured): the whole budget is its own, and it searches every cell itself.
struct LocalCoordinator: ClusterCoordinator, CellSharing {
    let budget: CallBudget
    /// The source whose budget this is, as metrics name it.
    let source: String
    let metrics: BackdropMetrics

    init(source: String, callsPerHour: Int, clock: any WallClock, metrics: BackdropMetrics) {
        self.budget = CallBudget(callsPerHour: callsPerHour, clock: clock)
        self.source = source
        self.metrics = metrics
    }

    func sharing() -> any CellSharing { self }

    func takeCall() async -> Bool {
        let granted = await self.budget.take()
        self.metrics.budgetTokens(self.source, await self.budget.available)
        return granted
    }

    func claim(_ key: CellWindow) async throws -> CellClaim { .search }

    func publish(_ results: Data, for key: CellWindow) async -> Data { results }

    func read(_ key: CellWindow) async -> Data? { nil }

    func publishLooks(_ results: Data, for key: CellWindow) async -> Data? { nil }

    func takeShare(_ name: String, perHour: Int) async -> Bool? { nil }

    func returnShare(_ name: String) async {}

    func publishFailure(for key: CellWindow, backoff: Double) async {}

    func publishKeyRejected(retryAfter: Double) async {}
}
