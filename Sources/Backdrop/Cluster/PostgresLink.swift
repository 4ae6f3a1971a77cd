import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO

/// One replica's connection to the shared database: made and migrated at start, watched, and made again with back-off
/// (at most 10 s between tries) whenever it is lost or a query on it hangs. Requests never wait for it: while it is
/// down, ``current`` is nil and they go on alone. Losing it and getting it back are each logged once.
actor PostgresLink {
    let url: PostgresURL
    private let timeout: Duration
    private let logger: Logger
    private let metrics: BackdropMetrics?
    private var connection: PostgresConnection?
    private var nextID = 1
    /// Whether the replica has said that it works alone, so that an outage is logged once and its end once.
    private var outageLogged = false
    /// Finished once ``start()`` has run, so that ``maintain(every:_:)`` does not connect beside it.
    private let started = AsyncStream<Never>.makeStream()
    /// Where every call on the database runs, so that a hung one never holds its caller (run by ``maintain(every:_:)``).
    let work = AbandonableWork()

    static let longestRetryDelay: Duration = .seconds(10)

    init(url: PostgresURL, timeout: Duration, logger: Logger, metrics: BackdropMetrics?) {
        self.url = url
        self.timeout = timeout
        self.logger = logger
        self.metrics = metrics
    }

    /// The connection to query on; nil while the database is unreachable.
    var current: PostgresConnection? {
        guard let connection = self.connection, !connection.isClosed else { return nil }
        return connection
    }

    /// A query on `connection` hung or the connection broke: close it, so that requests go on alone until it is back.
    func drop(_ connection: PostgresConnection, because error: any Error) {
        guard let current = self.connection, current === connection else { return }
        self.connection = nil
        self.noteOutage(error)
        // Started, not awaited: a hung connection must not hold this actor; the close completes on its event loop.
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in }
    }

    /// At start: connects and migrates the schema. Throws a ``ConfigError`` naming `cluster.postgresURL` when the
    /// database refuses this replica for good (login, database, a newer schema); a database that cannot be reached
    /// yet is not an error (the replica starts alone and keeps trying).
    func start() async throws {
        defer { self.started.continuation.finish() }
        do {
            self.connection = try await self.connect()
            self.logger.notice("sharing Flickr's budget and searches through PostgreSQL", metadata: ["database": "\(self.url)"])
        } catch {
            if let refusal = Self.refusal(error, url: self.url) { throw refusal }
            self.noteOutage(error)
        }
    }

    /// Keeps the connection until cancelled: waits for it to close, then reconnects with growing pauses. Every
    /// `interval` while connected it runs `chore` (the clean-up of expired rows).
    /// It also runs ``work`` (every call on the database) for as long.
    func maintain(every interval: Duration, _ chore: @escaping @Sendable (PostgresConnection) async throws -> Void) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.work.run() }
            await self.keepConnected(every: interval, chore)
            group.cancelAll()
        }
    }

    private func keepConnected(every interval: Duration, _ chore: @escaping @Sendable (PostgresConnection) async throws -> Void) async {
        for await _ in self.started.stream {}
        var delay = Duration.milliseconds(250)
        while !Task.isCancelled {
            if let connection = self.current {
                do {
                    try await self.work.waitAtMost(self.timeout) { try await chore(connection) }
                } catch is CancellationError {
                    break
                } catch {
                    self.metrics?.clusterDatabaseError("cleanup")
                    if error is WaitTimedOut || Self.isConnectionError(error) { self.drop(connection, because: error) }
                }
                _ = try? await self.work.waitAtMost(interval) { try await connection.closeFuture.get() }
                continue
            }
            do {
                self.connection = try await self.connect()
                delay = .milliseconds(250)
                if self.outageLogged {
                    self.outageLogged = false
                    self.logger.notice("PostgreSQL is back: sharing Flickr's budget and searches again", metadata: ["database": "\(self.url)"])
                }
            } catch {
                self.metrics?.clusterDatabaseError("connect")
                self.noteOutage(error)
                do { try await Task.sleep(for: delay) } catch { break }
                delay = min(delay * 2, Self.longestRetryDelay)
            }
        }
        if let connection = self.connection {
            self.connection = nil
            try? await connection.close()
        }
    }

    private func noteOutage(_ error: any Error) {
        self.metrics?.clusterConnected(false)
        guard !self.outageLogged else { return }
        self.outageLogged = true
        self.logger.warning("PostgreSQL cannot be reached: working alone on a conservative share of the Flickr budget until it is back",
                            metadata: ["database": "\(self.url)", "error": "\(Self.describe(error))"])
    }

    /// A new connection with the schema in place; closed again if the migration fails.
    private func connect() async throws -> PostgresConnection {
        var configuration = PostgresConnection.Configuration(host: self.url.host, port: self.url.port, username: self.url.username,
                                                             password: self.url.password, database: self.url.database,
                                                             tls: try Self.tls(self.url.tls))
        configuration.options.connectTimeout = TimeAmount(self.timeout)
        let id = self.nextID
        self.nextID += 1
        let (logger, settings) = (self.logger, configuration)
        let connection = try await self.work.waitAtMost(self.timeout * 2) {
            try await PostgresConnection.connect(configuration: settings, id: id, logger: logger)
        }
        do {
            _ = try await self.work.waitAtMost(self.timeout * 5) {
                try await connection.query(PostgresQuery(unsafeSQL: ClusterSchema.migration), logger: logger)
            }
        } catch {
            try? await connection.close()
            throw error
        }
        self.metrics?.clusterConnected(true)
        return connection
    }

    private static func tls(_ mode: PostgresURL.TLSMode) throws -> PostgresConnection.Configuration.TLS {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable:
            return .disable
        case .prefer, .require:
            configuration.certificateVerification = .none
            let context = try NIOSSLContext(configuration: configuration)
            return mode == .prefer ? .prefer(context) : .require(context)
        case .verifyFull:
            return .require(try NIOSSLContext(configuration: configuration))
        }
    }

    /// Whether `error` says the connection itself is gone (rather than one query failing).
    static func isConnectionError(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        return [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown].contains(error.code)
    }

    /// The refusals that stop a replica at start: a database that will never take it as configured.
    static func refusal(_ error: any Error, url: PostgresURL) -> ConfigError? {
        guard let error = error as? PSQLError else { return nil }
        let key = "cluster.postgresURL"
        switch error.serverInfo?[.sqlState] {
        case "28P01", "28000":
            return ConfigError(key: key, "PostgreSQL refused the login of user \"\(url.username)\" (wrong user or password) at \(url)")
        case "3D000":
            return ConfigError(key: key, "PostgreSQL has no database \"\(url.database)\" at \(url)")
        case ClusterSchema.newerSchemaState:
            return ConfigError(key: key, "\(error.serverInfo?[.message] ?? "the schema is newer than this Backdrop's") at \(url)")
        default:
            break
        }
        switch error.code {
        case .server:
            return ConfigError(key: key, "PostgreSQL refused: \(error.serverInfo?[.message] ?? "an error") at \(url)")
        case .sslUnsupported:
            return ConfigError(key: key, "the server does not offer TLS, which sslmode=\(url.tls.rawValue) requires, at \(url)")
        case .authMechanismRequiresPassword, .unsupportedAuthMechanism, .saslError:
            return ConfigError(key: key, "PostgreSQL asks for a login this URL cannot give (a password?) at \(url)")
        default:
            return nil
        }
    }

    /// A short account of `error` without anything from the URL (PostgresNIO's own descriptions are generic).
    static func describe(_ error: any Error) -> String {
        if error is WaitTimedOut { return "no answer in time" }
        guard let error = error as? PSQLError else { return String(describing: type(of: error)) }
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
