/// Where background photos come from: stock photos here; Flickr (with stock as fallback) later; fixtures in tests.
public protocol PhotoSource: Sendable {
    /// The photo for `place` during `window`: the same answer for every request of that place and window.
    func photo(for place: Place, in window: TimeWindow) async throws -> SourcePhoto
    /// The photo's encoded bytes, in the smallest variant that covers `size` (sources with one variant ignore it).
    func imageData(for photo: SourcePhoto, covering size: PixelSize) async throws -> EncodedImage
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

public enum PhotoOrigin: String, Sendable, Hashable {
    case stock
    case flickr
}

/// One chosen photo and what must be said about it wherever it is shown.
public struct SourcePhoto: Sendable, Hashable {
    /// Unique and stable across restarts, e.g. "stock-003".
    public let id: String
    public let origin: PhotoOrigin
    public let attribution: Attribution

    public init(id: String, origin: PhotoOrigin, attribution: Attribution) {
        self.id = id
        self.origin = origin
        self.attribution = attribution
    }
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
