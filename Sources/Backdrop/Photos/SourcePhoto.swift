/// One chosen photo and what must be said about it wherever it is shown.
package struct SourcePhoto: Sendable, Hashable, Codable {
    /// Unique and stable across restarts, e.g. "stock-003" or "flickr-53012345678".
    package let id: String
    package let origin: PhotoOrigin
    package let attribution: Attribution
    /// The sizes a remote photo can be downloaded in, smallest first (empty for local photos).
    package let sizes: [PhotoSize]
    /// A photo chosen in an earlier window, served because its source is failing now.
    package var stale: Bool

    package init(id: String, origin: PhotoOrigin, attribution: Attribution, sizes: [PhotoSize] = [], stale: Bool = false) {
        self.id = id
        self.origin = origin
        self.attribution = attribution
        self.sizes = sizes
        self.stale = stale
    }

    /// What the source header says: `flickr`, `stock`, or `flickr; stale`.
    package var sourceLabel: String { self.stale ? "\(self.origin.rawValue); stale" : self.origin.rawValue }

    /// Stock photos and stale ones stand in for what was asked; caches should keep them briefly.
    package var isFallback: Bool { self.origin == .stock || self.stale }

    /// The smallest size that covers `target` when cover-fitted without enlarging, else the largest.
    package func size(covering target: PixelSize) -> PhotoSize? {
        self.sizes.first { $0.width >= target.width && $0.height >= target.height } ?? self.sizes.last
    }
}

package enum PhotoOrigin: String, Sendable, Hashable, Codable {
    case stock
    case flickr
}
