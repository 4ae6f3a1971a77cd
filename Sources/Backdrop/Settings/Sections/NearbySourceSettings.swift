import Foundation

extension Settings {
    /// What every source that searches near a place has (`flickr`, `commons`), with one set of keys and ranges: where
    /// it is called, how long a call may take, how large a download may be and how much of them is kept, and the image
    /// hosts it may fetch from besides its own. Each of those sections embeds one and reads these keys into it; their
    /// fields read as the section's own (`settings.flickr.totalTimeout`).
    package struct NearbySource: Sendable, Equatable {
        /// The API's address.
        package var endpoint: String
        /// `connectTimeoutSeconds`.
        package var connectTimeout = Duration.seconds(5)
        /// One call's whole time, its body read (`totalTimeoutSeconds`).
        package var totalTimeout = Duration.seconds(15)
        package var maxDownloadMB = 20
        /// Image hosts allowed besides the source's own (tests, mirrors).
        package var extraImageHosts: [String] = []
        /// Downloaded photos kept in memory (0: none).
        package var downloadCacheMB = 64

        package init(endpoint: String) {
            self.endpoint = endpoint
        }

        mutating func read(_ section: inout SectionReader) throws {
            self.endpoint = try section.string("endpoint", default: self.endpoint, allowEmpty: false, check: Settings.checkHTTPURL)
            self.connectTimeout = try section.duration(
                "connectTimeoutSeconds",
                default: self.connectTimeout,
                unit: .seconds,
                in: 0.1...60,
                whole: false
            )
            self.totalTimeout = try section.duration("totalTimeoutSeconds", default: self.totalTimeout, unit: .seconds, in: 0.1...120, whole: false)
            self.maxDownloadMB = try section.int("maxDownloadMB", default: self.maxDownloadMB, in: 1...200)
            self.extraImageHosts = try section.strings("extraImageHosts", default: self.extraImageHosts, check: Settings.checkHostName)
            self.downloadCacheMB = try section.int("downloadCacheMB", default: self.downloadCacheMB, in: 0...4096)
        }
    }
}

/// A section that embeds the keys every nearby source has (``Settings/NearbySource``), read as its own fields
/// (`settings.flickr.totalTimeout`, `settings.commons.endpoint`). Its radius and call budget stay its own: the APIs'
/// limits differ (Flickr searches 32 km at most, Commons 10).
@dynamicMemberLookup
package protocol EmbedsNearbySource: Sendable, Equatable {
    var nearby: Settings.NearbySource { get set }
}

extension EmbedsNearbySource {
    package subscript<Value>(dynamicMember path: WritableKeyPath<Settings.NearbySource, Value>) -> Value {
        get { self.nearby[keyPath: path] }
        set { self.nearby[keyPath: path] = newValue }
    }
}
