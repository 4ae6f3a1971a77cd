import Foundation

extension Settings {
    /// Command-line values, which win over the environment and the file.
    package struct Overrides: Sendable {
        package var host: String?
        package var port: Int?
        package var postgresURL: String?

        package init(host: String? = nil, port: Int? = nil, postgresURL: String? = nil) {
            self.host = host
            self.port = port
            self.postgresURL = postgresURL
        }
    }

    /// Reads `file`, then the environment, then `overrides`. Relative folders in the file are resolved against
    /// the file's folder; folders from the environment against the working directory.
    package static func load(file: String, environment: [String: String], overrides: Overrides = .init()) throws -> Settings {
        let url = URL(fileURLWithPath: file)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ConfigError(key: "", "cannot read config file \(file)")
        }
        var settings = try Self.parse(data, source: file)
        settings.resolveFolders(relativeTo: url.deletingLastPathComponent())
        try settings.apply(environment: environment)
        try settings.apply(overrides)
        return settings
    }

    /// Parses config JSON strictly: unknown keys, wrong types and out-of-range values fail, naming the key.
    package static func parse(_ data: Data, source: String = "config") throws -> Settings {
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ConfigError(key: "", "\(source) is not valid JSON (\(Self.describe(error)))")
        }
        if let duplicate = JSONValue.firstDuplicateKey(in: data) {
            throw ConfigError(key: duplicate, "is given twice in \(source)")
        }
        var root = try ConfigReader(json, path: "")
        var settings = Settings()
        if var section = try root.section("server") {
            settings.server.host = try section.string("host", default: settings.server.host, allowEmpty: false)
            settings.server.port = try section.int("port", default: settings.server.port, in: 0...65535)
            settings.server.publicFolder = try section.string("publicFolder", default: settings.server.publicFolder, allowEmpty: false)
            settings.server.logLevel = try section.choice("logLevel", default: settings.server.logLevel)
            settings.server.logFormat = try section.choice("logFormat", default: settings.server.logFormat)
            settings.server.idleTimeoutSeconds = try section.int("idleTimeoutSeconds", default: settings.server.idleTimeoutSeconds, in: 1...3600)
            settings.server.requestHeadTimeoutSeconds = try section.int(
                "requestHeadTimeoutSeconds",
                default: settings.server.requestHeadTimeoutSeconds,
                in: 1...600
            )
            settings.server.maxConnections = try section.int("maxConnections", default: settings.server.maxConnections, in: 1...1_000_000)
            settings.server.backlog = try section.int("backlog", default: settings.server.backlog, in: 1...65535)
            let cors = try section.strings("corsOrigins", default: ["*"])
            guard let origins = CORSOrigins(cors) else {
                throw ConfigError(
                    key: "server.corsOrigins",
                    "must be [\"*\"], a list of origins such as \"https://example.com\" (scheme, host and port, no path), or []"
                )
            }
            settings.server.corsOrigins = origins
            settings.server.trustedProxies = try section.strings("trustedProxies", default: []).map { text in
                guard let range = IPRange(text) else {
                    throw ConfigError(key: "server.trustedProxies", "\"\(text.prefix(60))\" is not an IP address or CIDR range")
                }
                return range
            }
            settings.server.clientPrefixIPv4 = try section.int("clientPrefixIPv4", default: settings.server.clientPrefixIPv4, in: 8...32)
            settings.server.clientPrefixIPv6 = try section.int("clientPrefixIPv6", default: settings.server.clientPrefixIPv6, in: 16...128)
            try section.rejectUnknownKeys()
        }
        if var section = try root.section("photos") {
            settings.photos.stockFolder = try section.string("stockFolder", default: settings.photos.stockFolder, allowEmpty: false)
            settings.photos.geohashPrecision = try section.int("geohashPrecision", default: settings.photos.geohashPrecision, in: 1...12)
            settings.photos.windowSeconds = try section.int("windowSeconds", default: settings.photos.windowSeconds, in: 60...86400)
            settings.photos.sources = try Self.photoSources(try section.strings("sources", default: settings.photos.sources.map(\.rawValue)))
            settings.photos.deny = try section.strings("deny", default: [])
            if let bad = settings.photos.deny.first(where: { !PhotoDenylist.isName($0) }) {
                throw ConfigError(
                    key: "photos.deny",
                    "entries are photo ids (\"flickr-53012345678\", \"stock-003\") or owner ids (\"12345678@N00\"): 1 to 100 characters, no spaces; got \"\(bad.prefix(60))\""
                )
            }
            try section.rejectUnknownKeys()
        }
        if var section = try root.section("render") {
            settings.render.width = try section.int("width", default: settings.render.width, in: BackgroundLimits.sideRange)
            settings.render.height = try section.int("height", default: settings.render.height, in: BackgroundLimits.sideRange)
            guard settings.render.width * settings.render.height <= BackgroundLimits.maxPixels else {
                throw ConfigError(key: "render.height", "width x height must be at most \(BackgroundLimits.maxPixels) pixels")
            }
            settings.render.blur = try section.double("blur", default: settings.render.blur, in: 0...1)
            settings.render.style = try section.choice("style", default: settings.render.style)
            var encoders = settings.render.encoders
            encoders.pngEncoder = try section.choice("pngEncoder", default: encoders.pngEncoder)
            for retired in ["pngLevel", "pngFilter"] where try section.ignored(retired) {
                settings.warnings.append(
                    "render.\(retired) is not used and can be removed: PNG rows are filtered Up or Paeth and compressed at one level (render.pngEncoder chooses the compressor)"
                )
            }
            encoders.jpegQuality = try section.int("jpegQuality", default: encoders.jpegQuality, in: 1...100)
            encoders.webpQuality = try section.int("webpQuality", default: encoders.webpQuality, in: 0...100)
            encoders.webpMethod = try section.int("webpMethod", default: encoders.webpMethod, in: 0...6)
            encoders.avifQuality = try section.int("avifQuality", default: encoders.avifQuality, in: 0...100)
            encoders.avifBlurredQuality = try section.int("avifBlurredQuality", default: encoders.avifBlurredQuality, in: 0...100)
            encoders.avifSpeed = try section.int("avifSpeed", default: encoders.avifSpeed, in: 0...10)
            settings.render.encoders = encoders
            let prepared = try section.renamed("memoryCacheMB", to: "preparedImagesMemoryMB", warnings: &settings.warnings)
            settings.render.preparedImagesMemoryMB = try section.int(prepared, default: settings.render.preparedImagesMemoryMB, in: 0...65536)
            settings.render.maxQueueWaitMs = try section.int("maxQueueWaitMs", default: settings.render.maxQueueWaitMs, in: 10...60000)
            settings.render.maxPending = try section.int("maxPending", default: settings.render.maxPending, in: 0...1_000_000)
            settings.render.workers = try section.int("workers", default: settings.render.workers, in: 0...256)
            try section.rejectUnknownKeys()
        }
        if var section = try root.section("images") {
            settings.images.maxSourceMegapixels = try section.int("maxSourceMegapixels", default: settings.images.maxSourceMegapixels, in: 1...500)
            settings.images.maxDecoderMemoryMB = try section.int("maxDecoderMemoryMB", default: settings.images.maxDecoderMemoryMB, in: 16...16384)
            settings.images.maxProgressiveScans = try section.int("maxProgressiveScans", default: settings.images.maxProgressiveScans, in: 1...10000)
            try section.rejectUnknownKeys()
        }
        if var section = try root.section("commons") { try settings.commons.read(&section) }
        if var section = try root.section("flickr") {
            var flickr = settings.flickr
            flickr.apiKey = try section.string("apiKey", default: flickr.apiKey)
            if try section.ignored("apiSecret") { settings.warnings.append(Self.noSecret("flickr.apiSecret")) }
            flickr.endpoint = try section.string("endpoint", default: flickr.endpoint, allowEmpty: false)
            guard let endpoint = URL(string: flickr.endpoint), ["http", "https"].contains(endpoint.scheme ?? ""), endpoint.host != nil else {
                throw ConfigError(key: "flickr.endpoint", "must be an http or https URL, got \"\(flickr.endpoint)\"")
            }
            flickr.radiusKm = try section.double("radiusKm", default: flickr.radiusKm, in: 0.1...32)
            flickr.tags = try section.string("tags", default: flickr.tags)
            flickr.licenses = try section.string("licenses", default: flickr.licenses, allowEmpty: false)
            try Self.checkLicenses(flickr.licenses)
            flickr.minUploadAgeDays = try section.int("minUploadAgeDays", default: flickr.minUploadAgeDays, in: 1...36500)
            flickr.callsPerHour = try section.int("callsPerHour", default: flickr.callsPerHour, in: 1...3600)
            flickr.connectTimeoutSeconds = try section.double("connectTimeoutSeconds", default: flickr.connectTimeoutSeconds, in: 0.1...60)
            flickr.totalTimeoutSeconds = try section.double("totalTimeoutSeconds", default: flickr.totalTimeoutSeconds, in: 0.1...120)
            flickr.requestDeadlineSeconds = try section.double("requestDeadlineSeconds", default: flickr.requestDeadlineSeconds, in: 0.1...120)
            flickr.maxDownloadMB = try section.int("maxDownloadMB", default: flickr.maxDownloadMB, in: 1...200)
            flickr.extraImageHosts = try section.strings("extraImageHosts", default: flickr.extraImageHosts)
            for host in flickr.extraImageHosts where !Self.isHostName(host) {
                throw ConfigError(
                    key: "flickr.extraImageHosts",
                    "\"\(host.prefix(60))\" is not a host name (a name such as images.example.com or an IP address, no scheme, path or port)"
                )
            }
            flickr.downloadCacheMB = try section.int("downloadCacheMB", default: flickr.downloadCacheMB, in: 1...65536)
            flickr.cellCacheEntries = try section.int("cellCacheEntries", default: flickr.cellCacheEntries, in: 1...10_000_000)
            settings.flickr = flickr
            try section.rejectUnknownKeys()
        }
        if var section = try root.section("cache") {
            settings.cache.folder = try section.string("folder", default: settings.cache.folder)
            settings.cache.expirySeconds = try section.int("expirySeconds", default: settings.cache.expirySeconds, in: 1...86400)
            settings.cache.maxMB = try section.int("maxMB", default: settings.cache.maxMB, in: 1...1_048_576)
            settings.cache.maxFiles = try section.int("maxFiles", default: settings.cache.maxFiles, in: 0...100_000_000)
            settings.cache.maxStaleHours = try section.int("maxStaleHours", default: settings.cache.maxStaleHours, in: 0...720)
            settings.cache.fallbackMaxAgeSeconds = try section.int(
                "fallbackMaxAgeSeconds",
                default: settings.cache.fallbackMaxAgeSeconds,
                in: 0...86400
            )
            settings.cache.staleWhileRevalidateSeconds = try section.int(
                "staleWhileRevalidateSeconds",
                default: settings.cache.staleWhileRevalidateSeconds,
                in: 0...604_800
            )
            let rendered = try section.renamed("memoryMB", to: "renderedImagesMemoryMB", warnings: &settings.warnings)
            settings.cache.renderedImagesMemoryMB = try section.int(rendered, default: settings.cache.renderedImagesMemoryMB, in: 0...65536)
            settings.cache.previewsMemoryMB = try section.int("previewsMemoryMB", default: settings.cache.previewsMemoryMB, in: 0...4096)
            settings.cache.openFiles = try section.int("openFiles", default: settings.cache.openFiles, in: 0...65536)
            try section.rejectUnknownKeys()
        }
        if var section = try root.section("cluster") {
            settings.cluster.postgresURL = try section.string("postgresURL", default: settings.cluster.postgresURL)
            _ = try Self.postgresURL(settings.cluster.postgresURL)
            settings.cluster.leaseSeconds = try section.double("leaseSeconds", default: settings.cluster.leaseSeconds, in: 1...300)
            settings.cluster.timeoutSeconds = try section.double("timeoutSeconds", default: settings.cluster.timeoutSeconds, in: 0.1...30)
            settings.cluster.expectedReplicas = try section.int("expectedReplicas", default: settings.cluster.expectedReplicas, in: 1...1000)
            try section.rejectUnknownKeys()
        }
        if var section = try root.section("telemetry") {
            var telemetry = settings.telemetry
            telemetry.otlpEndpoint = try section.string("otlpEndpoint", default: telemetry.otlpEndpoint)
            if !telemetry.otlpEndpoint.isEmpty {
                guard let url = URL(string: telemetry.otlpEndpoint), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                    throw ConfigError(key: "telemetry.otlpEndpoint", "must be an http or https URL, got \"\(telemetry.otlpEndpoint.prefix(200))\"")
                }
            }
            telemetry.serviceName = try section.string("serviceName", default: telemetry.serviceName, allowEmpty: false)
            telemetry.sampler = try section.choice("sampler", default: telemetry.sampler)
            telemetry.samplerRatio = try section.double("samplerRatio", default: telemetry.samplerRatio, in: 0...1)
            telemetry.trustIncomingTraceparent = try section.choice("trustIncomingTraceparent", default: telemetry.trustIncomingTraceparent)
            telemetry.resourceAttributes = try section.stringMap("resourceAttributes", default: telemetry.resourceAttributes)
            settings.telemetry = telemetry
            try section.rejectUnknownKeys()
        }
        try root.rejectUnknownKeys()
        guard settings.cluster.leaseSeconds > settings.flickr.requestDeadlineSeconds else {
            throw ConfigError(
                key: "cluster.leaseSeconds",
                "must be more than flickr.requestDeadlineSeconds (\(settings.flickr.requestDeadlineSeconds) s), so that a live replica's search ends before its lease; got \(settings.cluster.leaseSeconds)"
            )
        }
        return settings
    }

    /// Flickr licence ids allowed: those that permit a modified copy (never NoDerivs 3, 6, 13, 16).
    /// A DNS name (letters, digits, hyphens, dots) or an IP address.
    static func isHostName(_ text: String) -> Bool {
        if IPRange.bytes(text) != nil { return true }
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return !text.isEmpty && text.utf8.count <= 253
            && labels.allSatisfy { label in
                !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                    && label.unicodeScalars.allSatisfy {
                        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                    }
            }
    }

    private static func checkLicenses(_ list: String) throws {
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let id = Int(item.trimmingCharacters(in: .whitespaces)), (0...16).contains(id) else {
                throw ConfigError(key: "flickr.licenses", "must be comma-separated Flickr licence ids, got \"\(list)\"")
            }
            guard ![3, 6, 13, 16].contains(id) else {
                throw ConfigError(key: "flickr.licenses", "licence \(id) is NoDerivs, which forbids the blurred copies Backdrop serves")
            }
        }
    }

    /// `text` as the PostgreSQL URL replicas share; nil when empty (working alone). The error names
    /// `cluster.postgresURL` (and `source` when the URL came from elsewhere), never showing the password.
    static func postgresURL(_ text: String, source: String = "cluster.postgresURL") throws -> PostgresURL? {
        guard !text.isEmpty else { return nil }
        do {
            return try PostgresURL(text)
        } catch let error as PostgresURL.Invalid {
            throw ConfigError(
                key: "cluster.postgresURL",
                source == "cluster.postgresURL" ? error.description : "\(error.description) (from \(source))"
            )
        }
    }

    private static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            return (context.underlyingError.map { "\($0)" } ?? context.debugDescription).prefix(200).description
        }
        return "\(error)".prefix(200).description
    }

    mutating func resolveFolders(relativeTo base: URL) {
        func resolve(_ path: String) -> String {
            path.hasPrefix("/") ? path : base.appendingPathComponent(path).standardizedFileURL.path
        }
        self.server.publicFolder = resolve(self.server.publicFolder)
        self.photos.stockFolder = resolve(self.photos.stockFolder)
        if !self.cache.folder.isEmpty { self.cache.folder = resolve(self.cache.folder) }
    }

    mutating func apply(environment: [String: String]) throws {
        if let text = environment["BACKDROP_PHOTO_SOURCES"] {
            do {
                self.photos.sources = try Self.photoSources(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            } catch {
                throw ConfigError(
                    key: "BACKDROP_PHOTO_SOURCES",
                    "must list flickr, commons and stock (each once, stock last), comma-separated, got \"\(text.prefix(60))\""
                )
            }
        }
        if let host = environment["BACKDROP_HOST"] {
            guard !host.isEmpty else { throw ConfigError(key: "BACKDROP_HOST", "must not be empty") }
            self.server.host = host
        }
        if let text = environment["BACKDROP_PORT"] {
            guard let port = Int(text), (0...65535).contains(port) else {
                throw ConfigError(key: "BACKDROP_PORT", "must be a port number between 0 and 65535, got \"\(text)\"")
            }
            self.server.port = port
        }
        let endpoint = [environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"], environment["OTEL_EXPORTER_OTLP_ENDPOINT"], self.telemetry.otlpEndpoint]
            .compactMap { $0 }.first { !$0.isEmpty }
        self.telemetry.enabled =
            endpoint != nil && environment["OTEL_SDK_DISABLED"]?.lowercased() != "true"
            && environment["OTEL_TRACES_EXPORTER"]?.lowercased() != "none"
        if let text = environment["OTEL_TRACES_SAMPLER"], !text.isEmpty {
            guard let sampler = TraceSamplerSetting(rawValue: text.lowercased()) else {
                throw ConfigError(
                    key: "OTEL_TRACES_SAMPLER",
                    "must be one of \(TraceSamplerSetting.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(text.prefix(64))\""
                )
            }
            self.telemetry.sampler = sampler
        }
        if let text = environment["OTEL_TRACES_SAMPLER_ARG"], !text.isEmpty {
            guard let ratio = Double(text), (0...1).contains(ratio) else {
                throw ConfigError(key: "OTEL_TRACES_SAMPLER_ARG", "must be a sampling ratio between 0 and 1, got \"\(text.prefix(64))\"")
            }
            self.telemetry.samplerRatio = ratio
        }
        if let text = environment["BACKDROP_LOG_FORMAT"] {
            guard let format = LogFormatSetting(rawValue: text) else {
                throw ConfigError(key: "BACKDROP_LOG_FORMAT", "must be one of \(LogFormatSetting.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self.server.logFormat = format
        }
        if let text = environment["BACKDROP_LOG_LEVEL"] {
            guard let level = LogLevelSetting(rawValue: text) else {
                throw ConfigError(key: "BACKDROP_LOG_LEVEL", "must be one of \(LogLevelSetting.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self.server.logLevel = level
        }
        let workingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        func folder(_ key: String) throws -> String? {
            guard let path = environment[key] else { return nil }
            guard !path.isEmpty else { throw ConfigError(key: key, "must not be empty") }
            return path.hasPrefix("/") ? path : workingDirectory.appendingPathComponent(path).standardizedFileURL.path
        }
        if let path = try folder("BACKDROP_PUBLIC_FOLDER") { self.server.publicFolder = path }
        if let path = try folder("BACKDROP_STOCK_FOLDER") { self.photos.stockFolder = path }
        if let path = environment["BACKDROP_CACHE_FOLDER"], path.isEmpty {
            self.cache.folder = ""  // turns the disk cache off
        } else if let path = try folder("BACKDROP_CACHE_FOLDER") {
            self.cache.folder = path
        }
        if let url = environment["BACKDROP_POSTGRES_URL"] {
            _ = try Self.postgresURL(url, source: "BACKDROP_POSTGRES_URL")
            self.cluster.postgresURL = url
        }
        if let text = environment["BACKDROP_TRUSTED_PROXIES"] {
            self.server.trustedProxies = try text.split(separator: ",").map { item in
                let text = item.trimmingCharacters(in: .whitespaces)
                guard let range = IPRange(text) else {
                    throw ConfigError(key: "BACKDROP_TRUSTED_PROXIES", "\"\(text.prefix(60))\" is not an IP address or CIDR range")
                }
                return range
            }
        }
        if let key = environment["FLICKR_API_KEY"] { self.flickr.apiKey = key }
        if environment["FLICKR_API_SECRET"] != nil { self.warnings.append(Self.noSecret("FLICKR_API_SECRET")) }
    }

    /// Backdrop signs nothing: Flickr's search is a public call, for which the key alone is needed.
    static func noSecret(_ name: String) -> String {
        "\(name) is not used and can be removed: Backdrop makes only unsigned public Flickr calls, which need the API key alone"
    }

    mutating func apply(_ overrides: Overrides) throws {
        if let host = overrides.host {
            guard !host.isEmpty else { throw ConfigError(key: "--host", "must not be empty") }
            self.server.host = host
        }
        if let port = overrides.port {
            guard (0...65535).contains(port) else { throw ConfigError(key: "--port", "must be between 0 and 65535, got \(port)") }
            self.server.port = port
        }
        if let url = overrides.postgresURL {
            _ = try Self.postgresURL(url, source: "--postgres-url")
            self.cluster.postgresURL = url
        }
    }
}
