import Foundation

extension Settings {
    /// Wikimedia Commons, searched with no key (``CommonsSearch``).
    package struct Commons: EmbedsNearbySource {
        /// The keys every nearby source has; its own image hosts are `upload.wikimedia.org` and `thumb.wikimedia.org`.
        package var nearby = NearbySource(endpoint: "https://commons.wikimedia.org/w/api.php")
        /// Who calls, as Wikimedia's policy asks: a name and a way to reach whoever runs this instance. Operators put
        /// their own contact in it. Every call sends it followed by `Backdrop/<version>` (``headerValue``).
        package var userAgent = "Backdrop (https://github.com/backdrop-photos/backdrop; operators: put your contact in commons.userAgent)"
        /// The radius searched, nearest files first: Commons' limit of 10 km by default.
        package var radiusKm = 10.0
        /// API calls a replica (or, sharing a database, all of them) makes in an hour at most.
        package var callsPerHour = 600
        /// Requests in flight to Wikimedia's media hosts (`upload.wikimedia.org`, `thumb.wikimedia.org`) together, photos
        /// and thumbnails alike: 2, as Wikimedia's robot policy asks.
        package var mediaConcurrency = 2
        /// Requests to Wikimedia's media hosts an hour, photos and thumbnails alike, shared by every replica as
        /// `callsPerHour` is: about five a second, what two connections within Wikimedia's 25 Mbps carry of thumbnails.
        package var mediaPerHour = 20000
        /// Megabits a second read from Wikimedia's media hosts, by every download together: 25, Wikimedia's figure.
        package var mediaMbps = 25

        package init() {}

        /// Whether the operator has said who runs this instance (the default names only the project).
        var hasOwnContact: Bool { !self.userAgent.contains("operators: put your contact") }

        /// The `User-Agent` header in Wikimedia's form, `name/version (contact) library/version`: the operator's name
        /// and contact, then Backdrop and its version, then the HTTP library (`MyApp/2.0 (ops@example.org)
        /// Backdrop/VERSION AsyncHTTPClient/1`); the default, which names the project itself, becomes `Backdrop/VERSION
        /// (https://…; operators: …) AsyncHTTPClient/1`.
        var headerValue: String {
            let project = "Backdrop "
            guard self.userAgent.hasPrefix(project) else { return "\(self.userAgent) Backdrop/\(Backdrop.version) AsyncHTTPClient/1" }
            return "Backdrop/\(Backdrop.version) \(self.userAgent.dropFirst(project.count)) AsyncHTTPClient/1"
        }
    }
}

extension Settings.Commons: SettingsSection {
    static let name = "commons"

    mutating func read(_ section: inout SectionReader) throws {
        try self.nearby.read(&section)
        self.userAgent = try section.string(
            "userAgent",
            default: self.userAgent,
            allowEmpty: false,
            check: { agent in
                guard agent.utf8.count <= 300, agent.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                    throw Invalid("must be printable ASCII of at most 300 characters")
                }
            }
        )
        self.radiusKm = try section.double("radiusKm", default: self.radiusKm, in: 0.01...10)
        self.callsPerHour = try section.int("callsPerHour", default: self.callsPerHour, in: 1...36000)
        self.mediaConcurrency = try section.int("mediaConcurrency", default: self.mediaConcurrency, in: 1...16)
        self.mediaPerHour = try section.int("mediaPerHour", default: self.mediaPerHour, in: 1...360_000)
        self.mediaMbps = try section.int("mediaMbps", default: self.mediaMbps, in: 1...10_000)
    }
}
