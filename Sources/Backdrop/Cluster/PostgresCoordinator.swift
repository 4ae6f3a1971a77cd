import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// Replicas sharing one Flickr API key through PostgreSQL (``ClusterSchema``): the key's budget, one search per cell and
/// window under a lease, and what each replica learned. Whenever the database cannot answer within the request's
/// allowance, the replica goes on alone with `callsPerHour / expectedReplicas` of the budget, never with an error.
struct PostgresCoordinator: ClusterCoordinator, Service {
    let database: ClusterDatabase
    /// The API key as the database knows it: a hash, never the key itself.
    let keyHash: String
    /// This replica's name on the leases it holds.
    let holder: String
    let callsPerHour: Int
    let leaseSeconds: Double
    let windowSeconds: Int
    /// How the replica works while the database cannot answer: alone, on a conservative share of the budget.
    let alone: LocalCoordinator
    let clock: any WallClock
    let logger: Logger
    let metrics: BackdropMetrics

    /// The coordinator for `flickr`'s key and budget, through the database `cluster` names.
    init(
        url: PostgresURL,
        cluster: Settings.Cluster,
        flickr: Settings.Flickr,
        windowSeconds: Int,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics
    ) throws {
        self.database = try ClusterDatabase(url: url, timeout: cluster.timeout, logger: logger, metrics: metrics)
        self.keyHash = String(StableHash.of("flickr-api-key/\(flickr.apiKey)"), radix: 16)
        self.holder = "\(ProcessInfo.processInfo.hostName)/\(ProcessInfo.processInfo.processIdentifier)/\(UInt32.random(in: 0...UInt32.max))"
        self.callsPerHour = flickr.callsPerHour
        self.leaseSeconds = cluster.lease / .seconds(1)
        self.windowSeconds = windowSeconds
        self.alone = LocalCoordinator(
            callsPerHour: max(1, flickr.callsPerHour / cluster.expectedReplicas),
            clock: clock,
            metrics: metrics
        )
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
    }

    /// Another budget through the same database and connections: a keyless source's (`name`), with its own calls an
    /// hour, its own cells and discoveries. Only the first coordinator runs as a service.
    init(sharing other: PostgresCoordinator, budget name: String, callsPerHour: Int, expectedReplicas: Int) {
        self.database = other.database
        self.keyHash = String(StableHash.of("budget/\(name)"), radix: 16)
        self.holder = other.holder
        self.callsPerHour = callsPerHour
        self.leaseSeconds = other.leaseSeconds
        self.windowSeconds = other.windowSeconds
        self.alone = LocalCoordinator(callsPerHour: max(1, callsPerHour / expectedReplicas), clock: other.clock, metrics: other.metrics)
        self.clock = other.clock
        self.logger = other.logger
        self.metrics = other.metrics
    }

    /// The coordinator the settings ask for: PostgreSQL when `cluster.postgresURL` is set, else a replica alone.
    static func make(
        cluster: Settings.Cluster,
        flickr: Settings.Flickr,
        windowSeconds: Int,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics
    ) throws -> PostgresCoordinator? {
        try Settings.postgresURL(cluster.postgresURL).map {
            try PostgresCoordinator(
                url: $0,
                cluster: cluster,
                flickr: flickr,
                windowSeconds: windowSeconds,
                clock: clock,
                logger: logger,
                metrics: metrics
            )
        }
    }

    var status: ClusterStatus {
        get async { self.database.isUp ? .postgres : .degraded }
    }

    func sharing() -> any CellSharing {
        PostgresSharing(coordinator: self, allowance: DatabaseAllowance(self.database.timeout))
    }

    /// Runs the database client; deletes expired rows once a minute and whenever the database is back.
    func run() async throws {
        let (windowSeconds, clock, logger) = (self.windowSeconds, self.clock, self.logger)
        await cancelWhenGracefulShutdown {
            await self.database.run { database in
                let window = TimeWindow(containing: clock.now(), seconds: windowSeconds).index
                _ = await database.query("cleanup", within: database.timeout) { connection in
                    try await connection.query(ClusterSchema.deleteCells(before: window), logger: logger)
                    try await connection.query(PostgresQuery(unsafeSQL: ClusterSchema.cleanupCalls), logger: logger)
                    return true
                }
            }
        }
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
        self.metrics.clusterBudgetTokens(max(0, left))
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

    func publish(_ finding: Data, for key: CellWindow) async -> Data {
        let query = ClusterSchema.publish(key: self.coordinator.keyHash, key, result: String(decoding: finding, as: UTF8.self))
        let logger = self.logger
        let stored = await self.query("publish") { try await $0.query(query, logger: logger).firstRow().decode(String.self) }
        return stored.map { Data($0.utf8) } ?? finding
    }

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
