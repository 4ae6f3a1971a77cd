import Foundation

/// One geosearch of Commons' file namespace near a point, with each file's size, type, thumbnail URLs and metadata in
/// the same call (MediaWiki's `generator=geosearch` with `prop=imageinfo`), and which of Commons' assessment
/// categories it is in (`prop=categories` with `clcategories`: MediaWiki matches those titles exactly, where the
/// metadata's `Assessments` takes any category whose name starts like one).
struct CommonsSearchQuery: Sendable, Hashable {
    let latitude: Double
    let longitude: Double
    /// Metres, 10 to 10,000 (Commons' limit).
    let radiusMetres: Int

    static let maxRadiusMetres = 10_000
    static let limit = 100
    /// The metadata the credit and the ranking read; asking for these alone keeps the answer small.
    static let metadata = [
        "Artist", "Attribution", "LicenseShortName", "LicenseUrl", "License", "ObjectName", "DateTimeOriginal", "Categories",
        "GPSLatitude", "GPSLongitude", "Restrictions",
    ]

    var items: [(String, String)] {
        [
            ("action", "query"),
            ("format", "json"),
            ("formatversion", "2"),
            ("generator", "geosearch"),
            ("ggscoord", String(format: "%.6f|%.6f", self.latitude, self.longitude)),
            ("ggsradius", String(min(Self.maxRadiusMetres, max(10, self.radiusMetres)))),
            ("ggsnamespace", "6"),
            ("ggslimit", String(Self.limit)),
            ("prop", "imageinfo|categories"),
            ("iiprop", "url|size|mime|extmetadata|user|userid"),
            ("iiurlwidth", String(CommonsFile.askedWidth)),
            ("iiextmetadatafilter", Self.metadata.joined(separator: "|")),
            ("iiextmetadatalanguage", "en"),
            ("clcategories", CommonsFile.assessmentCategories.keys.sorted().joined(separator: "|")),
            // 3 categories for each of 100 files at most: within one answer's 500.
            ("cllimit", "max"),
        ]
    }

    func url(endpoint: String) -> String {
        let query = self.items.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
        return endpoint + (endpoint.contains("?") ? "&" : "?") + query
    }

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~"))) ?? ""
    }
}
