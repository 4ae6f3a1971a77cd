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

    /// What `X-Backdrop-Source` and the JSON's `source` say of a photo from it: its name, marked when the photo is a
    /// stale stand-in (`flickr; stale`).
    package func label(stale: Bool) -> String { stale ? "\(self.rawValue); stale" : self.rawValue }

    /// Every label it can have: its name, and for a nearby source that name marked stale.
    package var labels: [String] { self.searchesNearby ? [self.label(stale: false), self.label(stale: true)] : [self.label(stale: false)] }
}
