extension Settings {
    /// `server`: where Backdrop listens, its connections, its logs and its clients.
    package struct Server: Sendable, Equatable {
        package var host = "127.0.0.1"
        package var port = 8080
        package var publicFolder = "Public"
        package var logLevel = LogLevelSetting.info
        /// `text`: one readable line per entry; `json`: one JSON object per line (Loki, Elasticsearch, cloud logs).
        package var logFormat = LogFormatSetting.text
        /// How long a connection may sit idle (between requests, or before its first) before it is closed
        /// (`idleTimeoutSeconds`).
        package var idleTimeout = Duration.seconds(60)
        /// How long a client may take to send a request's head, or the next part of a request's body
        /// (`requestHeadTimeoutSeconds`).
        package var requestHeadTimeout = Duration.seconds(10)
        /// Open client connections at most; past it, accepting pauses until one closes.
        package var maxConnections = 10_000
        /// Connections the kernel may queue before they are accepted (capped by the system's own maximum).
        package var backlog = 1024
        /// Proxies (addresses or CIDR ranges) whose `X-Real-IP` or `X-Forwarded-For` names the client; none by default,
        /// so every client is its peer address.
        package var trustedProxies: [IPRange] = []
        /// Clients are networks: IPv4 addresses cut to this many bits for the render queue's turns (32: one address).
        package var clientPrefixIPv4 = 32
        /// IPv6 addresses cut to this many bits (64: the subnet one host or home line is given).
        package var clientPrefixIPv6 = 64
        /// Origins whose pages may read Backdrop's answers from scripts (CORS): `*` for any, a list, or none (off).
        package var corsOrigins = CORSOrigins.any

        package init() {}
    }
}

extension Settings.Server: SettingsSection {
    static let name = "server"

    mutating func read(_ section: inout SectionReader) throws {
        self.host = try section.string("host", default: self.host, allowEmpty: false, env: ["BACKDROP_HOST"], flag: "--host")
        self.port = try section.int("port", default: self.port, in: 0...65535, env: ["BACKDROP_PORT"], flag: "--port")
        self.publicFolder = try section.folder("publicFolder", default: self.publicFolder, env: "BACKDROP_PUBLIC_FOLDER")
        self.logLevel = try section.choice("logLevel", default: self.logLevel, env: ["BACKDROP_LOG_LEVEL"])
        self.logFormat = try section.choice("logFormat", default: self.logFormat, env: ["BACKDROP_LOG_FORMAT"])
        self.idleTimeout = try section.duration("idleTimeoutSeconds", default: self.idleTimeout, unit: .seconds, in: 1...3600)
        self.requestHeadTimeout = try section.duration("requestHeadTimeoutSeconds", default: self.requestHeadTimeout, unit: .seconds, in: 1...600)
        self.maxConnections = try section.int("maxConnections", default: self.maxConnections, in: 1...1_000_000)
        self.backlog = try section.int("backlog", default: self.backlog, in: 1...65535)
        let origins = try section.strings("corsOrigins", default: ["*"])
        guard let cors = CORSOrigins(origins) else {
            throw ConfigError(
                key: section.name("corsOrigins"),
                "must be [\"*\"], a list of origins such as \"https://example.com\" (scheme, host and port, no path), or []"
            )
        }
        self.corsOrigins = cors
        self.trustedProxies = try section.list(
            "trustedProxies",
            default: [],
            env: ["BACKDROP_TRUSTED_PROXIES"],
            show: { IPRange.text($0.network, prefix: $0.prefix) },
            item: { text in
                guard let range = IPRange(text) else { throw Invalid("\"\(text.prefix(60))\" is not an IP address or CIDR range") }
                return range
            }
        )
        self.clientPrefixIPv4 = try section.int("clientPrefixIPv4", default: self.clientPrefixIPv4, in: 8...32)
        self.clientPrefixIPv6 = try section.int("clientPrefixIPv6", default: self.clientPrefixIPv6, in: 16...128)
    }
}
