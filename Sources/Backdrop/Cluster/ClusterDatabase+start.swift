import Foundation
import Logging
import PostgresNIO

/// The replica's start against the shared database: the schema migrated before the server takes requests, and the
/// refusals that stop it there.
extension ClusterDatabase {
    /// At start, before the server takes requests: one connection of its own migrates the schema. (Not a pooled one:
    /// the pool hides why it could not connect, retrying until its circuit breaker trips after a minute, and a refused
    /// login must stop the replica at once, naming the key.) Throws a
    /// ``ConfigError`` naming `cluster.postgresURL` when the database refuses this replica for good (login, database, a
    /// newer schema); a database that cannot be reached yet is not an error: the replica starts alone and ``run()``
    /// keeps trying.
    func start() async throws {
        let (url, logger, timeout) = (self.url, self.logger, self.timeout)
        do {
            var configuration = PostgresConnection.Configuration(
                host: url.host,
                port: url.port,
                username: url.username,
                password: url.password,
                database: url.database,
                tls: try url.tls.connectionTLS()
            )
            configuration.options.connectTimeout = TimeAmount(timeout)
            let settings = configuration
            try await withDeadline(timeout * 5) {
                let connection = try await PostgresConnection.connect(configuration: settings, id: 0, logger: Self.quiet(logger))
                do {
                    _ = try await Self.closingOnCancel(connection) {
                        try await $0.query(PostgresQuery(unsafeSQL: ClusterSchema.migration), logger: logger)
                    }
                    try await connection.close()
                } catch {
                    try? await connection.close()
                    throw error
                }
            }
            self.markUp(announce: false)
            logger.notice("sharing the budgets and searches through PostgreSQL", metadata: ["database": "\(url)"])
        } catch {
            if let refusal = Self.refusal(error, url: url) { throw refusal }
            self.markDown(error)
        }
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
}
