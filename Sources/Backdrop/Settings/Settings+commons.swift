import Foundation

/// The names `photos.sources` takes.
package enum PhotoSourceName: String, Sendable, Equatable, CaseIterable {
    case flickr, commons, stock
}

extension Settings {
    /// Wikimedia Commons, searched with no key (``CommonsSearch``).
    package struct Commons: Sendable, Equatable {
        package var endpoint = "https://commons.wikimedia.org/w/api.php"
        /// Who calls, as Wikimedia's policy asks: a name and a way to reach whoever runs this instance. Operators put
        /// their own contact in it. Every call sends it followed by `Backdrop/<version>` (``headerValue``).
        package var userAgent = "Backdrop (https://github.com/backdrop-photos/backdrop; operators: put your contact in commons.userAgent)"
        /// The first radius searched; it widens up to Commons' limit of 10 km.
        package var radiusKm = 2.0
        /// API calls a replica (or, sharing a database, all of them) makes in an hour at most.
        package var callsPerHour = 600
        package var connectTimeoutSeconds = 5.0
        package var totalTimeoutSeconds = 15.0
        package var maxDownloadMB = 20
        /// Image hosts allowed besides `upload.wikimedia.org` (tests, mirrors).
        package var extraImageHosts: [String] = []
        package var downloadCacheMB = 64

        /// Whether the operator has said who runs this instance (the default names only the project).
        var hasOwnContact: Bool { !self.userAgent.contains("operators: put your contact") }

        /// The `User-Agent` header: the operator's name and contact, then the software and its version.
        var headerValue: String { "\(self.userAgent) Backdrop/\(Backdrop.version)" }

        mutating func read(_ section: inout ConfigReader) throws {
            self.endpoint = try section.string("endpoint", default: self.endpoint, allowEmpty: false)
            guard let url = URL(string: self.endpoint), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ConfigError(key: "commons.endpoint", "must be an http or https URL, got \"\(self.endpoint.prefix(80))\"")
            }
            self.userAgent = try section.string("userAgent", default: self.userAgent, allowEmpty: false)
            guard self.userAgent.utf8.count <= 300, self.userAgent.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                throw ConfigError(key: "commons.userAgent", "must be printable ASCII of at most 300 characters")
            }
            self.radiusKm = try section.double("radiusKm", default: self.radiusKm, in: 0.01...10)
            self.callsPerHour = try section.int("callsPerHour", default: self.callsPerHour, in: 1...36000)
            self.connectTimeoutSeconds = try section.double("connectTimeoutSeconds", default: self.connectTimeoutSeconds, in: 0.1...60)
            self.totalTimeoutSeconds = try section.double("totalTimeoutSeconds", default: self.totalTimeoutSeconds, in: 0.1...120)
            self.maxDownloadMB = try section.int("maxDownloadMB", default: self.maxDownloadMB, in: 1...200)
            self.extraImageHosts = try section.strings("extraImageHosts", default: self.extraImageHosts)
            for host in self.extraImageHosts where !Settings.isHostName(host) {
                throw ConfigError(key: "commons.extraImageHosts", "\"\(host.prefix(60))\" is not a host name")
            }
            self.downloadCacheMB = try section.int("downloadCacheMB", default: self.downloadCacheMB, in: 0...4096)
            try section.rejectUnknownKeys()
        }
    }

    /// `photos.sources`: known names, no repeats, `stock` last.
    static func photoSources(_ names: [String]) throws -> [PhotoSourceName] {
        let sources = try names.map { name in
            guard let source = PhotoSourceName(rawValue: name) else {
                throw ConfigError(key: "photos.sources", "\"\(name.prefix(40))\" is not a source: use flickr, commons and stock")
            }
            return source
        }
        guard Set(sources).count == sources.count, sources.last == .stock else {
            throw ConfigError(key: "photos.sources", "must name each source once and end with \"stock\", got \(names)")
        }
        return sources
    }
}
