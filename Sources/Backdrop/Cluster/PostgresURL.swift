import Foundation

/// Where the replicas' shared database is: `postgres://user:password@host:port/database?sslmode=…` (or `postgresql://`).
/// Its ``description`` masks the password, so that the URL can be logged and shown in errors.
package struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    /// As libpq's `sslmode`: `prefer` (the default) and `require` encrypt without checking the server's certificate,
    /// `verify-full` checks it against the system's trusted roots and the host name.
    enum TLSMode: String, Sendable {
        case disable, prefer, require
        case verifyFull = "verify-full"
    }

    /// Why a URL cannot be used; never contains the password.
    package struct Invalid: Error, CustomStringConvertible {
        package let description: String
    }

    package let host: String
    package let port: Int
    package let username: String
    package let password: String?
    package let database: String
    let tls: TLSMode
    /// The URL as given, its password masked (``mask(_:)``): how settings print it.
    package let masked: String

    package init(_ text: String) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw Invalid(description: "must be a URL like postgres://user:password@host:5432/database, got \(Self.mask(text))")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw Invalid(description: "must start with postgres:// or postgresql://, got \(Self.mask(text))")
        }
        guard let host = components.host, !host.isEmpty else { throw Invalid(description: "names no host: \(Self.mask(text))") }
        guard let user = components.user, !user.isEmpty else { throw Invalid(description: "names no user: \(Self.mask(text))") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw Invalid(description: "names no database (…/DATABASE at its end): \(Self.mask(text))")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw Invalid(description: "port must be between 1 and 65535: \(Self.mask(text))")
        }
        var tls = TLSMode.prefer
        for item in components.queryItems ?? [] {
            guard item.name == "sslmode", let value = item.value, let mode = TLSMode(rawValue: value) else {
                throw Invalid(
                    description: "the only option understood is sslmode=disable|prefer|require|verify-full, got \(item.name) in \(Self.mask(text))"
                )
            }
            tls = mode
        }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = components.port ?? 5432
        self.username = components.user?.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
        self.tls = tls
        self.masked = Self.mask(text)
    }

    package var description: String {
        let password = self.password == nil ? "" : ":****"
        return "postgres://\(self.username)\(password)@\(self.host):\(self.port)/\(self.database)?sslmode=\(self.tls.rawValue)"
    }

    /// `text` with whatever stands between `user:` and `@` replaced, for messages about URLs that did not parse.
    static func mask(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text.range(of: "@", options: .backwards),
            scheme.upperBound < at.lowerBound
        else { return text.contains("@") ? "(a URL whose password is not shown)" : text }
        let credentials = text[scheme.upperBound..<at.lowerBound]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return text.replacingCharacters(in: credentials.index(after: colon)..<at.lowerBound, with: "****")
    }
}
