import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// Replicas sharing one source's call budget through PostgreSQL (``ClusterSchema``): the budget, one search per cell
/// and window under a lease, and what each replica learned. Whenever the database cannot answer within the request's
/// allowance, the replica goes on alone with `callsPerHour / expectedReplicas` of the budget, never with an error.
/// Every source's coordinator shares one database and its connections (``Replicas``).
struct PostgresCoordinator: ClusterCoordinator {
    let database: ClusterDatabase
    /// The budget as the database knows it: a hash of its name (which may hold a key), never the name itself.
    let keyHash: String
    /// This replica's name on the leases it holds.
    let holder: String
    let callsPerHour: Int
    let leaseSeconds: Double
    /// How the replica works while the database cannot answer: alone, on a conservative share of the budget.
    let alone: LocalCoordinator
    /// The source whose budget this is, as metrics name it.
    let source: String
    let logger: Logger
    let metrics: BackdropMetrics

    /// The coordinator of `budget`'s `callsPerHour` calls, for `source`, through `database`.
    init(
        database: ClusterDatabase,
        budget: String,
        source: String,
        callsPerHour: Int,
        holder: String,
        lease: Duration,
        expectedReplicas: Int,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics
    ) {
        self.database = database
        self.keyHash = String(StableHash.of(budget), radix: 16)
        self.holder = holder
        self.callsPerHour = callsPerHour
        self.leaseSeconds = lease / .seconds(1)
        self.alone = LocalCoordinator(source: source, callsPerHour: max(1, callsPerHour / expectedReplicas), clock: clock, metrics: metrics)
        self.source = source
        self.logger = logger
        self.metrics = metrics
    }

    func sharing() -> any CellSharing {
        PostgresSharing(coordinator: self, allowance: DatabaseAllowance(self.database.timeout))
    }
}

/// One request's use of the PostgreSQL coordinator: each call on the database within what is left of its allowance.
struct PostgresSharing: CellSharing {
    let coordinator: PostgresCoordinator
    let allowance: DatabaseAllowance

    private var database: ClusterDatabase { self.coordinator.database }
    private var metrics: BackdropMetrics { self.coordinator.metrics }
    private var logger: Logger { self.coordinator.logger }

    func takeCall() async -> Bool {
        let query = ClusterSchema.takeCall(key: self.coordinator.keyHash, perHour: Int32(clamping: self.coordinator.callsPerHour))
        let logger = self.logger
        let left = await self.query("budget") { try await $0.query(query, logger: logger).firstRow().decode(Int.self) }
        guard let left else { return await self.coordinator.alone.takeCall() }
        self.metrics.budgetTokens(self.coordinator.source, max(0, left))
        return left >= 0
    }

    func claim(_ key: CellWindow) async throws -> CellClaim {
        let query = ClusterSchema.claim(key: self.coordinator.keyHash, key, holder: self.coordinator.holder, lease: self.coordinator.leaseSeconds)
        let logger = self.logger
        let row = await self.query("claim") { try await $0.query(query, logger: logger).firstRow().decode((String, String?, Double).self) }
        try Task.checkCancellation()
        guard let (outcome, result, waitSeconds) = row else {
            self.metrics.clusterCell("alone")
            return try await self.coordinator.alone.claim(key)
        }
        switch outcome {
        case "claimed":
            self.metrics.clusterCell("searched")
            return .search
        case "done":
            guard let result else { return .search }
            self.metrics.clusterCell("shared")
            return .found(Data(result.utf8))
        case "failing":
            self.metrics.clusterCell("failing")
            return .failing
        case "key_rejected":
            self.metrics.clusterCell("key_rejected")
            return .keyRejected
        default:  // "wait": another replica holds the lease
            return .wait(seconds: waitSeconds)
        }
    }

    func publish(_ results: Data, for key: CellWindow) async -> Data {
        let query = ClusterSchema.publish(key: self.coordinator.keyHash, key, result: String(decoding: results, as: UTF8.self))
        let logger = self.logger
        let stored = await self.query("publish") { try await $0.query(query, logger: logger).firstRow().decode(String.self) }
        return stored.map { Data($0.utf8) } ?? results
    }

    func read(_ key: CellWindow) async -> Data? {
        let query = ClusterSchema.result(key: self.coordinator.keyHash, key)
        let logger = self.logger
        let result = await self.query("read") { connection -> String? in
            for try await row in try await connection.query(query, logger: logger) { return try row.decode(String.self) }
            return nil
        }
        return result.flatMap { $0.map { Data($0.utf8) } }
    }

    func publishLooks(_ results: Data, for key: CellWindow) async -> Data? {
        let query = ClusterSchema.publishLooks(key: self.coordinator.keyHash, key, result: String(decoding: results, as: UTF8.self))
        let logger = self.logger
        let written = await self.query("publish_looks") {
            try await $0.query(query, logger: logger)
            return true
        }
        guard written != nil else { return nil }
        return await self.read(key)
    }

    func takeShare(_ name: String, perHour: Int) async -> Bool? {
        let query = ClusterSchema.takeCall(key: self.shareHash(name), perHour: Int32(clamping: perHour))
        let logger = self.logger
        return await self.query("share") { try await $0.query(query, logger: logger).firstRow().decode(Int.self) >= 0 }
    }

    func returnShare(_ name: String) async {
        let query = ClusterSchema.returnCall(key: self.shareHash(name))
        let logger = self.logger
        _ = await self.query("share_return") {
            try await $0.query(query, logger: logger)
            return true
        }
    }

    /// The share `name` as the database knows it: within this budget (a key of its own), hashed.
    private func shareHash(_ name: String) -> String { String(StableHash.of(self.coordinator.keyHash + "/" + name), radix: 16) }

    func publishFailure(for key: CellWindow, backoff: Double) async {
        let query = ClusterSchema.fail(key: self.coordinator.keyHash, key, holder: self.coordinator.holder, backoff: backoff)
        let logger = self.logger
        _ = await self.query("fail") {
            try await $0.query(query, logger: logger)
            return true
        }
    }

    func publishKeyRejected(retryAfter: Double) async {
        let query = ClusterSchema.rejectKey(key: self.coordinator.keyHash, seconds: retryAfter)
        let logger = self.logger
        _ = await self.query("reject_key") {
            try await $0.query(query, logger: logger)
            return true
        }
    }

    /// `body` on the database within what is left of the request's allowance; nil when the database is down, the
    /// allowance is spent, or the query fails or takes too long.
    private func query<T: Sendable>(_ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async -> T? {
        guard self.database.isUp else { return nil }
        return await self.allowance.spend { left in await self.database.query(operation, within: left, body) }
    }
}

extension PostgresRowSequence {
    /// A query that always answers one row answered none.
    struct NoRow: Error {}

    /// The first row (the functions called answer one).
    func firstRow() async throws -> PostgresRow {
        for try await row in self { return row }
        throw NoRow()
    }
}
