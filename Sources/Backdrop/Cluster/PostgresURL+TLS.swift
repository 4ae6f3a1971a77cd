import NIOSSL
import PostgresNIO

/// The TLS each kind of connection takes for an `sslmode`.
extension PostgresURL.TLSMode {
    /// What this `sslmode` asks of TLS, as libpq reads it: nil for none; `prefer` and `require` without verifying the
    /// server's certificate, `verify-full` verifying it.
    var configuration: TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch self {
        case .disable: return nil
        case .prefer, .require: configuration.certificateVerification = .none
        case .verifyFull: break
        }
        return configuration
    }

    /// The pool's TLS.
    var poolTLS: PostgresClient.Configuration.TLS {
        guard let configuration = self.configuration else { return .disable }
        return self == .prefer ? .prefer(configuration) : .require(configuration)
    }

    /// The start-up connection's TLS: the same configuration, as a context.
    func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
        guard let configuration = self.configuration else { return .disable }
        let context = try NIOSSLContext(configuration: configuration)
        return self == .prefer ? .prefer(context) : .require(context)
    }
}
