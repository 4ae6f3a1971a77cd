import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// How this replica shares with the others (`cluster`): through PostgreSQL when `cluster.postgresURL` is set, else
/// alone. It hands every photo source its call budget in the same way (``coordinator(budget:source:callsPerHour:)``),
/// and says how the replica stands for `/health`.
struct Replicas: Sendable {
    /// The shared database, run as a service (nil: this replica works alone).
    let database: ClusterDatabase?
    let settings: Settings.Cluster
    let windowSeconds: Int
    /// This replica's name on the leases it holds.
    let holder: String
    let clock: any WallClock
    let logger: Logger
    let metrics: BackdropMetrics

    /// The replicas `cluster` describes; its URL was checked when the settings were read.
    init(_ cluster: Settings.Cluster, windowSeconds: Int, clock: any WallClock, logger: Logger, metrics: BackdropMetrics) throws {
        self.database = try cluster.postgres.map {
            try ClusterDatabase(url: $0, timeout: cluster.timeout, logger: logger, metrics: metrics)
        }
        self.settings = cluster
        self.windowSeconds = windowSeconds
        self.holder = "\(ProcessInfo.processInfo.hostName)/\(ProcessInfo.processInfo.processIdentifier)/\(UInt32.random(in: 0...UInt32.max))"
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
    }

    /// The coordinator of one source's budget of `callsPerHour` calls, known to the other replicas as `budget` (a
    /// name every replica of the same source gives alike, which may hold its key), counted in metrics as `source`.
    func coordinator(budget: String, source: String, callsPerHour: Int) -> any ClusterCoordinator {
        guard let database = self.database else {
            return LocalCoordinator(source: source, callsPerHour: callsPerHour, clock: self.clock, metrics: self.metrics)
        }
        return PostgresCoordinator(
            database: database,
            budget: budget,
            source: source,
            callsPerHour: callsPerHour,
            holder: self.holder,
            lease: self.settings.lease,
            expectedReplicas: self.settings.expectedReplicas,
            clock: self.clock,
            logger: self.logger,
            metrics: self.metrics
        )
    }

    /// `local` alone; `postgres` while the database answers, `degraded` while it does not.
    var status: ClusterStatus {
        guard let database = self.database else { return .local }
        return database.isUp ? .postgres : .degraded
    }

    /// What runs beside the server: the database's client and its upkeep (nothing when alone).
    var service: (any Service)? {
        self.database.map { ClusterUpkeep(database: $0, windowSeconds: self.windowSeconds, clock: self.clock, logger: self.logger) }
    }

    /// At start, before the server takes requests: the schema migrated (see ``ClusterDatabase/start()``).
    func start() async throws { try await self.database?.start() }
}

/// The shared database's client, and the deletion of expired rows once a minute and whenever the database is back.
struct ClusterUpkeep: Service {
    let database: ClusterDatabase
    let windowSeconds: Int
    let clock: any WallClock
    let logger: Logger

    func run() async throws {
        let (windowSeconds, clock, logger) = (self.windowSeconds, self.clock, self.logger)
        await cancelWhenGracefulShutdown {
            await self.database.run { database in
                let window = TimeWindow(containing: clock.now(), seconds: windowSeconds).index
                _ = await database.query("cleanup", within: database.timeout) { connection in
                    try await connection.query(ClusterSchema.deleteCells(before: window), logger: logger)
                    try await connection.query(PostgresQuery(unsafeSQL: ClusterSchema.cleanupCalls), logger: logger)
                    try await connection.query(PostgresQuery(unsafeSQL: ClusterSchema.cleanupKeys), logger: logger)
                    return true
                }
            }
        }
    }
}
