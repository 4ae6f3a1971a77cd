/// Where finished PNGs are kept between requests. The disk cache plugs in here; until then nothing is kept.
public protocol RenderedImageCache: Sendable {
    func cachedImage(for key: RenderedImageKey) async -> [UInt8]?
    func store(_ png: [UInt8], for key: RenderedImageKey) async
}

/// Identifies one rendered output: built from validated, normalised parameters only.
public struct RenderedImageKey: Sendable, Hashable {
    public let place: Place
    public let window: TimeWindow
    public let photoID: String
    public let spec: RenderSpec

    public init(place: Place, window: TimeWindow, photoID: String, spec: RenderSpec) {
        self.place = place
        self.window = window
        self.photoID = photoID
        self.spec = spec
    }
}

/// Keeps nothing.
public struct NoRenderedImageCache: RenderedImageCache {
    public init() {}
    public func cachedImage(for key: RenderedImageKey) async -> [UInt8]? { nil }
    public func store(_ png: [UInt8], for key: RenderedImageKey) async {}
}
