import Foundation

extension Settings {
    /// `flickr`: the Flickr photo source, asked only with a key.
    package struct Flickr: EmbedsNearbySource {
        package var apiKey = ""
        /// The keys every nearby source has.
        package var nearby = NearbySource(endpoint: "https://api.flickr.com/services/rest/")
        package var radiusKm = 10.0
        package var tags = ""
        package var licenses = "4,5,7,8,9,10,11,12"
        package var minUploadAgeDays = 1825
        package var callsPerHour = 3600

        package init() {}

        var allowedLicenses: Set<Int> {
            Set(self.licenses.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) })
        }
    }
}

extension Settings.Flickr: SettingsSection {
    static let name = "flickr"

    mutating func read(_ section: inout SectionReader) throws {
        self.apiKey = try section.string("apiKey", default: self.apiKey, env: ["FLICKR_API_KEY"], show: { $0.isEmpty ? "" : "****" })
        section.retired("apiSecret", variable: "FLICKR_API_SECRET", warning: Settings.noSecret)
        try self.nearby.read(&section)
        self.radiusKm = try section.double("radiusKm", default: self.radiusKm, in: 0.1...32)
        self.tags = try section.string("tags", default: self.tags)
        self.licenses = try section.string("licenses", default: self.licenses, allowEmpty: false, check: Self.checkLicenses)
        self.minUploadAgeDays = try section.int("minUploadAgeDays", default: self.minUploadAgeDays, in: 1...36500)
        self.callsPerHour = try section.int("callsPerHour", default: self.callsPerHour, in: 1...3600)
        // Moved to `photos`, which reads them from here for one release and says so.
        section.movedAway("requestDeadlineSeconds")
        section.movedAway("cellCacheEntries")
    }

    /// Flickr licence ids allowed: those that permit a modified copy (never NoDerivs 3, 6, 13, 16).
    private static func checkLicenses(_ list: String) throws {
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let id = Int(item.trimmingCharacters(in: .whitespaces)), (0...16).contains(id) else {
                throw Invalid("must be comma-separated Flickr licence ids, got \"\(list)\"")
            }
            guard ![3, 6, 13, 16].contains(id) else {
                throw Invalid("licence \(id) is NoDerivs, which forbids the blurred copies Backdrop serves")
            }
        }
    }
}
