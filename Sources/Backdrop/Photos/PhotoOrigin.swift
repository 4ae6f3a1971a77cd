/// The photo sources, in the line's default order: Flickr (with a key), Wikimedia Commons (with none), and the stock
/// photos, which always answer. The one list of their names: `photos.sources` takes them, a photo's origin is one,
/// `X-Backdrop-Source` and the JSON's `source` say it (``SourcePhoto/sourceLabel``), metrics and logs label by it; the
/// OpenAPI description, BackdropKit and the docs name the same (``SourceNamesTests`` checks them).
package enum PhotoOrigin: String, Sendable, Hashable, Codable, CaseIterable {
    case flickr
    case commons
    case stock

    /// Whether it searches near the place, and so can serve a cell's photo from an earlier window, marked stale.
    package var searchesNearby: Bool { self != .stock }

    /// What `X-Backdrop-Source` and the JSON's `source` can say of it: its name, and for a nearby source that name
    /// marked stale.
    package var labels: [String] { self.searchesNearby ? [self.rawValue, "\(self.rawValue); stale"] : [self.rawValue] }
}
