import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The replicas' shared database, reached through postgres-nio's `PostgresClient` (its pool, connect timeout and
/// keep-alive), which ``run()`` runs. Whether the database answers is tracked here: a query that fails on the
/// connection or hangs marks it down, and while it is down ``isUp`` is false, requests do not wait on it at all, and
/// ``run()`` probes it with growing pauses (at most 10 s) until it answers again, each time through a new pool: the
/// pool in use when the database went away is retired (shut down once its queries' deadlines have passed), so that
/// nothing it learned during the outage outlives it. Losing the database and getting it back are each logged once.
///
/// When the retirement can go: it works around postgres-nio 1.33.2's pool, which after a failed connection attempt
/// queues every lease behind retries that back off up to a minute (`backoffNextConnectionAttempt` in
/// ConnectionPoolModule; no upstream issue found). Delete it once a postgres-nio release serves leases as soon as
/// PostgreSQL answers again, shown by the cluster check's freeze-and-thaw passing without it.
final class ClusterDatabase: Sendable {
    let url: PostgresURL
    let timeout: Duration
    private let configuration: PostgresClient.Configuration
    let logger: Logger
    private let metrics: BackdropMetrics
    private let state: Mutex<State>

    private struct State {
        var up = false
        /// Whether the replica has said that it works alone, so that an outage is logged once and its end once.
        var outageLogged = false
        /// Resumed when the database is marked down, so that ``run()`` starts probing at once.
        var downSignal: CheckedContinuation<Void, Never>?
        /// The pool queries lease their connections from.
        var pool: Pool
    }

    /// One `PostgresClient`, and what ends its run when it is retired.
    private struct Pool: Sendable {
        let client: PostgresClient
        let retirement = OneShot<Void>()
    }

    static let longestRetryDelay: Duration = .seconds(10)
    static let cleanupInterval: Duration = .seconds(60)

    init(url: PostgresURL, timeout: Duration, logger: Logger, metrics: BackdropMetrics) throws {
        self.url = url
        self.timeout = timeout
        self.logger = logger
        self.metrics = metrics
        var configuration = PostgresClient.Configuration(
            host: url.host,
            port: url.port,
            username: url.username,
            password: url.password,
            database: url.database,
            tls: url.tls.poolTLS
        )
        configuration.options.connectTimeout = timeout
        configuration.options.maximumConnections = 8
        configuration.options.keepAliveBehavior = .init(frequency: .seconds(20))
        self.configuration = configuration
        self.state = Mutex(State(pool: Pool(client: PostgresClient(configuration: configuration, backgroundLogger: Self.quiet(logger)))))
    }

    var isUp: Bool { self.state.withLock { $0.up } }

    /// Runs the pool, and beside it the upkeep until cancelled: while the database is up, `chore` every minute (the
    /// clean-up of expired rows); while it is down, a new pool in place of the last one, then after a pause growing from
    /// 250 ms to 10 s a probe through it (the migration, idempotent), then `chore` at once when it answers.
    func run(_ chore: @escaping @Sendable (ClusterDatabase) async -> Void) async {
        await withDiscardingTaskGroup { group in
            let first = self.state.withLock { $0.pool }
            group.addTask { await self.serve(first) }
            var delay = Duration.milliseconds(250)
            while !Task.isCancelled {
                if self.isUp {
                    await chore(self)
                    await self.waitUntilDown(atMost: Self.cleanupInterval)
                    delay = .milliseconds(250)
                    continue
                }
                let fresh = self.replacePool()
                group.addTask { await self.serve(fresh) }
                do { try await Task.sleep(for: delay) } catch { break }  // also lets the new pool start running
                delay = min(delay * 2, Self.longestRetryDelay)
                let logger = self.logger
                let answered = await self.query("connect", within: self.timeout * 2, marksDown: false) {
                    try await $0.query(PostgresQuery(unsafeSQL: ClusterSchema.migration), logger: logger)
                    return true
                }
                if answered != nil {
                    self.markUp(announce: true)
                }
            }
            group.cancelAll()
        }
    }

    /// Runs `pool`'s client until the task is cancelled, or until the longest query that may have begun on the pool
    /// has passed its deadline after the pool was retired (so that every query on it ends by its own deadline, its
    /// connection closed, before the pool shuts down); then shuts the pool down.
    private func serve(_ pool: Pool) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await pool.client.run() }
            do {
                try await pool.retirement.wait()
                try await Task.sleep(for: self.timeout * 2 + .seconds(1))
            } catch {}
            group.cancelAll()
        }
    }

    /// Puts a new pool in place of the one in use and retires that one; returns the new pool, for ``serve(_:)``.
    private func replacePool() -> Pool {
        let fresh = Pool(client: PostgresClient(configuration: self.configuration, backgroundLogger: Self.quiet(self.logger)))
        let retired = self.state.withLock { state in
            defer { state.pool = fresh }
            return state.pool
        }
        retired.retirement.resume(with: .success(()))
        return fresh
    }

    /// Runs `body` on a pooled connection, waiting at most `limit`; nil when the database is down, or the query fails or
    /// takes too long (counted under `operation`). A query still running at the limit is cancelled by closing its
    /// connection (a frozen server does not heed cancellation); a hung query or broken connection marks the database
    /// down, so that the next requests go on alone at once instead of waiting too.
    func query<T: Sendable>(
        _ operation: String,
        within limit: Duration,
        marksDown: Bool = true,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async -> T? {
        guard limit > .zero else { return nil }
        let client = self.state.withLock { $0.pool.client }
        do {
            return try await withDeadline(limit) {
                try await client.withConnection { connection in try await Self.closingOnCancel(connection, body) }
            }
        } catch is CancellationError where Task.isCancelled {
            return nil
        } catch {
            self.metrics.clusterDatabaseError(operation)
            if !marksDown {
                self.noteOutage(error)  // a probe: the database is down already
            } else if Self.isConnectionError(error) || (error is DeadlinePassed && limit >= self.timeout / 2) {
                self.markDown(error)
            } else if !(error is DeadlinePassed) {
                self.logger.warning(
                    "a shared-state query failed: going on alone for this request",
                    metadata: ["operation": "\(operation)", "error": "\(Self.describe(error))"]
                )
            }
            return nil
        }
    }

    /// Runs `body` on `connection`, closing the connection if the task is cancelled meanwhile, so that the query ends.
    static func closingOnCancel<T: Sendable>(
        _ connection: PostgresConnection,
        _ body: @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withTaskCancellationHandler {
            try await body(connection)
        } onCancel: {
            let closing: EventLoopFuture<Void> = connection.close()
            closing.whenComplete { _ in }
        }
    }

    func markUp(announce: Bool) {
        let wasLogged = self.state.withLock { state in
            state.up = true
            defer { state.outageLogged = false }
            return state.outageLogged
        }
        self.metrics.clusterConnected(true)
        if announce && wasLogged {
            self.logger.notice("PostgreSQL is back: sharing the budgets and searches again", metadata: ["database": "\(self.url)"])
        }
    }

    func markDown(_ error: any Error) {
        let signal = self.state.withLock { state in
            state.up = false
            defer { state.downSignal = nil }
            return state.downSignal
        }
        signal?.resume()
        self.noteOutage(error)
    }

    private func noteOutage(_ error: any Error) {
        self.metrics.clusterConnected(false)
        let first = self.state.withLock { state in
            defer { state.outageLogged = true }
            return !state.outageLogged
        }
        guard first else { return }
        self.logger.warning(
            "PostgreSQL cannot be reached: working alone on a conservative share of each budget until it is back",
            metadata: ["database": "\(self.url)", "error": "\(Self.describe(error))"]
        )
    }

    /// Returns after `interval`, or as soon as the database is marked down, or on cancellation.
    private func waitUntilDown(atMost interval: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: interval) }
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let resumeNow = self.state.withLock { state in
                            guard state.up, !Task.isCancelled else { return true }
                            state.downSignal?.resume()
                            state.downSignal = continuation
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: {
                    self.state.withLock { state in
                        defer { state.downSignal = nil }
                        return state.downSignal
                    }?.resume()
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// PostgresNIO's own logger: each failed connection attempt is an `info` line there, repeated at every retry;
    /// Backdrop logs an outage and its end once itself, so only PostgresNIO's warnings and errors go through unless the
    /// log level is `debug` or finer.
    static func quiet(_ logger: Logger) -> Logger {
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, logger.logLevel <= .debug ? logger.logLevel : .warning)
        return quiet
    }

    /// Whether `error` says the connection itself is gone (rather than one query failing), or none could be had (the
    /// pool's own errors: its circuit breaker open, a lease refused).
    static func isConnectionError(_ error: any Error) -> Bool {
        if error is DeadlinePassed || error is CancellationError { return false }
        guard let error = error as? PSQLError else { return true }
        return [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown].contains(error.code)
    }

    /// A short account of `error` without anything from the URL (PostgresNIO's own descriptions are generic).
    static func describe(_ error: any Error) -> String {
        if error is DeadlinePassed { return "no answer in time" }
        guard let error = error as? PSQLError else { return String(describing: type(of: error)) }
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
