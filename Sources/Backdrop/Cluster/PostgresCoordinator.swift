import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// Replicas sharing one Flickr API key through PostgreSQL (``ClusterSchema``): the key's budget, one search per cell and
/// window under a lease, and what each replica learned. Whenever the database cannot answer within the request's
/// allowance, the replica goes on alone with `callsPerHour / expectedReplicas` of the budget, never with an error.
struct PostgresCoordinator: ClusterCoordinator, Service {
    let link: PostgresLink
    /// The API key as the database knows it: a hash, never the key itself.
    let keyHash: String
    /// This replica's name on the leases it holds.
    let holder: String
    let callsPerHour: Int
    let leaseSeconds: Double
    let timeout: Duration
    let windowSeconds: Int
    /// How the replica works while the database cannot answer: alone, on a conservative share of the budget.
    let alone: LocalCoordinator
    let clock: any WallClock
    let logger: Logger
    let metrics: BackdropMetrics?

    init(url: PostgresURL, settings: Settings, clock: any WallClock, logger: Logger, metrics: BackdropMetrics?) {
        let timeout = Duration.milliseconds(Int64(settings.cluster.timeoutSeconds * 1000))
        self.link = PostgresLink(url: url, timeout: timeout, logger: logger, metrics: metrics)
        self.keyHash = String(PhotoChoice.stableHash("flickr-api-key/\(settings.flickr.apiKey)"), radix: 16)
        self.holder = "\(ProcessInfo.processInfo.hostName)/\(ProcessInfo.processInfo.processIdentifier)/\(UInt32.random(in: 0...UInt32.max))"
        self.callsPerHour = settings.flickr.callsPerHour
        self.leaseSeconds = settings.cluster.leaseSeconds
        self.timeout = timeout
        self.windowSeconds = settings.photos.windowSeconds
        self.alone = LocalCoordinator(callsPerHour: max(1, settings.flickr.callsPerHour / settings.cluster.expectedReplicas), clock: clock,
                                      metrics: metrics)
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
    }

    var status: ClusterStatus {
        get async { await self.link.current == nil ? .degraded : .postgres }
    }

    var requestAllowance: DatabaseAllowance { DatabaseAllowance(self.timeout) }

    /// Keeps the connection and deletes expired rows once a minute.
    func run() async throws {
        let windowSeconds = self.windowSeconds
        let (clock, logger) = (self.clock, self.logger)
        await cancelWhenGracefulShutdown {
            await self.link.maintain(every: .seconds(60)) { connection in
                let window = TimeWindow(containing: clock.now(), seconds: windowSeconds).index
                try await connection.query("DELETE FROM backdrop_cells WHERE window_index < \(window)", logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: ClusterSchema.cleanupCalls), logger: logger)
            }
        }
    }

    func takeCall(_ allowance: inout DatabaseAllowance) async -> Bool {
        let (key, perHour, logger) = (self.keyHash, Int32(clamping: self.callsPerHour), self.logger)
        let left = await self.query("budget", &allowance) { connection in
            try await connection.query("SELECT backdrop_take_call(\(key), \(perHour))", logger: logger).firstRow().decode(Int.self)
        }
        guard let left else { return await self.alone.takeCall(&allowance) }
        self.metrics?.clusterBudgetTokens(max(0, left))
        return left >= 0
    }

    func claim(_ key: FlickrState.CellKey, _ allowance: inout DatabaseAllowance) async throws -> CellClaim {
        let (keyHash, holder, lease, logger) = (self.keyHash, self.holder, self.leaseSeconds, self.logger)
        let row = await self.query("claim", &allowance) { connection in
            try await connection.query("SELECT outcome, result, wait_seconds FROM backdrop_claim(\(keyHash), \(key.cell), \(key.window), \(holder), \(lease))",
                                       logger: logger).firstRow().decode((String, String?, Double).self)
        }
        try Task.checkCancellation()
        guard let (outcome, result, waitSeconds) = row else {
            self.metrics?.clusterCell("alone")
            return try await self.alone.claim(key, &allowance)
        }
        switch outcome {
        case "claimed":
            self.metrics?.clusterCell("searched")
            return .search
        case "done":
            guard let finding = result.flatMap({ try? JSONDecoder().decode(CellFinding.self, from: Data($0.utf8)) }) else {
                self.logger.warning("a cell's shared result cannot be read: searching it here", metadata: ["cell": "\(key.cell)"])
                return .search
            }
            self.metrics?.clusterCell("shared")
            return .found(finding)
        case "failing":
            self.metrics?.clusterCell("failing")
            return .failing
        case "key_rejected":
            self.metrics?.clusterCell("key_rejected")
            return .keyRejected
        default:  // "wait": another replica holds the lease
            return .wait(seconds: waitSeconds)
        }
    }

    func publish(_ finding: CellFinding, for key: FlickrState.CellKey, _ allowance: inout DatabaseAllowance) async -> CellFinding {
        guard let json = try? String(decoding: JSONEncoder().encode(finding), as: UTF8.self) else { return finding }
        let (keyHash, logger) = (self.keyHash, self.logger)
        let stored = await self.query("publish", &allowance) { connection in
            try await connection.query("SELECT backdrop_publish(\(keyHash), \(key.cell), \(key.window), \(json)::jsonb)", logger: logger)
                .firstRow().decode(String.self)
        }
        guard let stored, let agreed = try? JSONDecoder().decode(CellFinding.self, from: Data(stored.utf8)) else { return finding }
        return agreed
    }

    func publishFailure(for key: FlickrState.CellKey, backoff: Double, _ allowance: inout DatabaseAllowance) async {
        let (keyHash, holder, logger) = (self.keyHash, self.holder, self.logger)
        _ = await self.query("fail", &allowance) { connection in
            try await connection.query("SELECT backdrop_fail(\(keyHash), \(key.cell), \(key.window), \(holder), \(backoff))", logger: logger)
            return true
        }
    }

    func publishKeyRejected(retryAfter: Double, _ allowance: inout DatabaseAllowance) async {
        let (keyHash, logger) = (self.keyHash, self.logger)
        _ = await self.query("reject_key", &allowance) { connection in
            try await connection.query("SELECT backdrop_reject_key(\(keyHash), \(retryAfter))", logger: logger)
            return true
        }
    }

    /// Runs `body` on the connection within what is left of `allowance`; nil when there is no connection, the allowance
    /// is spent, or the query fails or takes too long (counted; a hung query or broken connection drops the connection,
    /// so that the next requests go on alone at once instead of waiting too).
    private func query<T: Sendable>(_ operation: String, _ allowance: inout DatabaseAllowance,
                                    _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async -> T? {
        guard !allowance.isSpent, let connection = await self.link.current else { return nil }
        let started = ContinuousClock.now
        let limit = allowance.remaining
        defer { allowance.spend(ContinuousClock.now - started) }
        do {
            return try await self.link.work.waitAtMost(limit) { try await body(connection) }
        } catch is CancellationError {
            return nil
        } catch {
            self.metrics?.clusterDatabaseError(operation)
            if PostgresLink.isConnectionError(error) || (error is WaitTimedOut && limit >= self.timeout / 2) {
                await self.link.drop(connection, because: error)
            } else if !(error is WaitTimedOut) {
                self.logger.warning("a shared-state query failed: going on alone for this request",
                                    metadata: ["operation": "\(operation)", "error": "\(PostgresLink.describe(error))"])
            }
            return nil
        }
    }
}
