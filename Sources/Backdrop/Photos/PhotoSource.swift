/// Where background photos come from: Flickr (with stock photos as fallback), stock photos alone, fixtures in tests.
public protocol PhotoSource: Sendable {
    /// The photo for `place` during `window`: the same answer for every request of that place and window.
    func photo(for place: Place, in window: TimeWindow) async throws -> SourcePhoto
    /// The photo's encoded bytes, in the smallest variant that covers `size` (sources with one variant ignore it).
    func imageData(for photo: SourcePhoto, covering size: PixelSize) async throws -> EncodedImage
    /// Reports that `photo` could not be downloaded or decoded, so that `place` gets another photo this window.
    func markUnusable(_ photo: SourcePhoto, place: Place, window: TimeWindow) async
}

extension PhotoSource {
    public func markUnusable(_ photo: SourcePhoto, place: Place, window: TimeWindow) async {}
}

/// What a request asks a photo for: a geohash cell, or no location at all.
public enum Place: Sendable, Hashable, CustomStringConvertible {
    case cell(Geohash)
    case unknown

    /// A stable key: the geohash, or "none".
    public var key: String {
        switch self {
        case .cell(let cell): cell.value
        case .unknown: "none"
        }
    }

    public var description: String { self.key }
}

public enum PhotoOrigin: String, Sendable, Hashable, Codable {
    case stock
    case flickr
}

/// One chosen photo and what must be said about it wherever it is shown.
public struct SourcePhoto: Sendable, Hashable, Codable {
    /// Unique and stable across restarts, e.g. "stock-003" or "flickr-53012345678".
    public let id: String
    public let origin: PhotoOrigin
    public let attribution: Attribution
    /// The sizes a remote photo can be downloaded in, smallest first (empty for local photos).
    public let sizes: [PhotoSize]
    /// A photo chosen in an earlier window, served because its source is failing now.
    public var stale: Bool

    public init(id: String, origin: PhotoOrigin, attribution: Attribution, sizes: [PhotoSize] = [], stale: Bool = false) {
        self.id = id
        self.origin = origin
        self.attribution = attribution
        self.sizes = sizes
        self.stale = stale
    }

    /// What the source header says: `flickr`, `stock`, or `flickr; stale`.
    public var sourceLabel: String { self.stale ? "\(self.origin.rawValue); stale" : self.origin.rawValue }

    /// Stock photos and stale ones stand in for what was asked; caches should keep them briefly.
    public var isFallback: Bool { self.origin == .stock || self.stale }

    /// The smallest size that covers `target` when cover-fitted without enlarging, else the largest.
    public func size(covering target: PixelSize) -> PhotoSize? {
        self.sizes.first { $0.width >= target.width && $0.height >= target.height } ?? self.sizes.last
    }
}

/// One downloadable size of a remote photo.
public struct PhotoSize: Sendable, Hashable, Codable {
    /// Flickr's size suffix: z, c, l, h, k.
    public let label: String
    public let url: String
    public let width: Int
    public let height: Int

    public init(label: String, url: String, width: Int, height: Int) {
        self.label = label
        self.url = url
        self.width = width
        self.height = height
    }

    public var longSide: Int { max(self.width, self.height) }
}

/// Encoded photo bytes (JPEG or PNG); `variant` names which size of the photo they are.
public struct EncodedImage: Sendable {
    public let bytes: [UInt8]
    public let variant: String

    public init(bytes: [UInt8], variant: String) {
        self.bytes = bytes
        self.variant = variant
    }
}
