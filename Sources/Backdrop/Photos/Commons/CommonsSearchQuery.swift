import Foundation

/// One search of Commons' file namespace near a point, with each file's size, type, thumbnail URLs and metadata in the
/// same call (`prop=imageinfo`), and which of Commons' assessment categories it is in (`prop=categories` with
/// `clcategories`: MediaWiki matches those titles exactly, where the metadata's `Assessments` takes any category whose
/// name starts like one). Two kinds (``Kind``): the assessed files within a radius, as CirrusSearch finds them, or the
/// nearest files, as GeoData's geosearch lists them.
struct CommonsSearchQuery: Sendable, Hashable {
    enum Kind: String, Sendable, Hashable {
        /// `generator=search` with `nearcoord:RADIUSm,LAT,LON incategory:"A|B|C"` over the assessment categories: the
        /// featured, quality and valued files whose primary coordinates (where the camera stood) lie within the radius,
        /// in CirrusSearch's order (help: mediawiki.org/wiki/Help:CirrusSearch, `nearcoord` and `incategory`).
        case assessed
        /// `generator=geosearch`: the files nearest the point, nearest first (mediawiki.org/wiki/API:Geosearch).
        case nearest
    }

    let kind: Kind
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

    var radius: Int { min(Self.maxRadiusMetres, max(10, self.radiusMetres)) }

    /// What CirrusSearch is asked for an assessed search: the point to six places (a tenth of a metre), the radius in
    /// metres, and the assessment categories by name (`|` between them is "or").
    var searchText: String {
        let categories = CommonsFile.assessmentCategories.keys.sorted().map { $0.replacingOccurrences(of: "Category:", with: "") }
        return String(format: "nearcoord:%dm,%.6f,%.6f", self.radius, self.latitude, self.longitude)
            + " incategory:\"\(categories.joined(separator: "|"))\""
    }

    var items: [(String, String)] {
        let generator: [(String, String)] =
            switch self.kind {
            case .assessed:
                [("generator", "search"), ("gsrsearch", self.searchText), ("gsrnamespace", "6"), ("gsrlimit", String(Self.limit))]
            case .nearest:
                [
                    ("generator", "geosearch"), ("ggscoord", String(format: "%.6f|%.6f", self.latitude, self.longitude)),
                    ("ggsradius", String(self.radius)), ("ggsnamespace", "6"), ("ggslimit", String(Self.limit)),
                ]
            }
        return [("action", "query"), ("format", "json"), ("formatversion", "2")] + generator + [
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
