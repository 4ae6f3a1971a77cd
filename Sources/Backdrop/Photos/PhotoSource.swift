/// Where background photos come from: Flickr (with stock photos as fallback), stock photos alone, fixtures in tests.
protocol PhotoSource: Sendable {
    /// The photo for `place` during `window`, the `variant`-th of its order (0 to ``PhotoVariants/limit`` less one): the
    /// same answer for every request of that place, window and variant.
    func photo(for place: Place, in window: TimeWindow, variant: Int) async throws -> SourcePhoto
    /// The photo's encoded bytes, in the smallest variant that covers `size` (sources with one variant ignore it).
    func imageData(for photo: SourcePhoto, covering size: PixelSize) async throws -> EncodedImage
    /// Reports that `photo` could not be downloaded or decoded, so that `place` gets another photo this window.
    func markUnusable(_ photo: SourcePhoto, place: Place, window: TimeWindow) async
    /// Whether a fallback photo from this source (stock, or stale) stands in for a better one that may come back soon,
    /// so that answers showing one are cached only briefly. A source of stock photos alone has nothing better to offer.
    var substitutesFallbacks: Bool { get }
    /// What to show for `place` when a request's upstream deadline has passed: a photo that needs no upstream call
    /// (the cell's earlier photo, stale, if its bytes are at hand; else a stock photo). It also tells the source that
    /// the place's upstream is too slow now, so that the next requests do not wait for it again at once.
    func fallback(for place: Place, in window: TimeWindow, variant: Int) async throws -> SourcePhoto
    /// The photo for `place` during `window` if it is known without any upstream call, else nil. Lets a render already
    /// in memory be answered without arming the request's upstream deadline.
    func knownPhoto(for place: Place, in window: TimeWindow, variant: Int) async -> SourcePhoto?
}

extension PhotoSource {
    package func markUnusable(_ photo: SourcePhoto, place: Place, window: TimeWindow) async {}
    package var substitutesFallbacks: Bool { true }
    package func fallback(for place: Place, in window: TimeWindow, variant: Int) async throws -> SourcePhoto {
        try await self.photo(for: place, in: window, variant: variant)
    }
    package func knownPhoto(for place: Place, in window: TimeWindow, variant: Int) async -> SourcePhoto? { nil }
}

/// Encoded photo bytes (JPEG or PNG); `variant` names which size of the photo they are.
package struct EncodedImage: Sendable {
    package let bytes: [UInt8]
    package let variant: String

    package init(bytes: [UInt8], variant: String) {
        self.bytes = bytes
        self.variant = variant
    }
}
