import Foundation

/// One `flickr.photos.search` near a point.
struct FlickrSearchQuery: Sendable, Hashable {
    package let latitude: Double
    package let longitude: Double
    package let radiusKm: Double
    /// Comma-separated; empty for none.
    package let tags: String
    package let licenses: String
    /// Sent when there are no tags: Flickr returns only the last 12 hours for a geo query without a "limiting agent".
    package let minUploadDate: Int64?

    /// Size URLs asked for, with their labels; `url_l` (1024 px) is the smallest a usable result must offer.
    static let sizeLabels = ["z", "c", "l", "h", "k"]
    static let perPage = 250
    /// The thumbnail's size (100 px), whose look is hashed (``CandidateLooks``).
    static let thumbnailLabel = "t"
    /// The credit's fields, the sizes, the thumbnail and what the ranking reads (``FlickrPhotoFacts``), all in the one
    /// call.
    static let extras =
        ["license", "owner_name", "path_alias"] + (sizeLabels + [thumbnailLabel]).map { "url_\($0)" }
        + ["date_taken", "tags", "geo", "views", "o_dims"]

    package init(latitude: Double, longitude: Double, radiusKm: Double, tags: String, licenses: String, minUploadDate: Int64?) {
        self.latitude = latitude
        self.longitude = longitude
        self.radiusKm = radiusKm
        self.tags = tags
        self.licenses = licenses
        self.minUploadDate = minUploadDate
    }

    /// The query items, in order, without the API key.
    var items: [(String, String)] {
        var items: [(String, String)] = [
            ("method", "flickr.photos.search"),
            ("format", "json"),
            ("nojsoncallback", "1"),
            ("lat", String(format: "%.6f", self.latitude)),
            ("lon", String(format: "%.6f", self.longitude)),
            ("radius", String(format: "%g", self.radiusKm)),
            ("radius_units", "km"),
        ]
        if !self.tags.isEmpty {
            items += [("tags", self.tags), ("tag_mode", "any")]
        } else if let minUploadDate {
            items.append(("min_upload_date", String(minUploadDate)))
        }
        items += [
            ("license", self.licenses),
            ("safe_search", "1"),
            ("content_types", "0"),
            ("media", "photos"),
            ("extras", Self.extras.joined(separator: ",")),
            ("sort", "interestingness-desc"),
            ("per_page", String(Self.perPage)),
        ]
        return items
    }

    /// The request URL: `endpoint` with the query and `apiKey`.
    func url(endpoint: String, apiKey: String) -> String {
        let query = ([("api_key", apiKey)] + self.items).map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
        return endpoint + (endpoint.contains("?") ? "&" : "?") + query
    }

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~,"))) ?? ""
    }
}
