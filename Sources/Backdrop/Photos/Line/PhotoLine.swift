/// Where a place's photo comes from, and the whole of the line's policy: the nearby sources `photos.sources` names, in
/// order, then the stock library, which ends the line and always answers. A nearby source answers only for itself (a
/// photo, or nil: it cannot serve now), and the line asks the next. A request tries ``PhotoAttempts/perSource`` photos
/// of a source at most, an unusable photo replaced by the next; past the `deadline` it takes the line's fallback
/// (``serve(place:window:variant:shape:client:logger:span:make:)``). Image data and "unusable" reports go to the
/// photo's own source, routed once, by its origin.
package struct PhotoLine: Sendable {
    let nearby: [NearbyPhotoSource]
    let stock: StockPhotoSource
    /// How long one request may wait on upstream work (searches, downloads, and what it makes of them) before it takes
    /// the fallback (`photos.requestDeadline`).
    let deadline: Duration
    let metrics: BackdropMetrics

    init(nearby: [NearbyPhotoSource], stock: StockPhotoSource, deadline: Duration, metrics: BackdropMetrics) {
        self.nearby = nearby
        self.stock = stock
        self.deadline = deadline
        self.metrics = metrics
    }

    /// The photo for `place` during `window` on a screen of `shape`, the `variant`-th of its order (0 to
    /// ``PhotoVariants/limit`` less one): the same answer for every request of that place, window, variant and class of
    /// screen, from the first source that can serve, leaving
    /// out the sources in `passing` (those a request has already tried enough photos of); a search it needs is charged
    /// to `client`'s share (``ClientShares``). Throws only `CancellationError`, or a stock library that cannot answer
    /// (it is read and checked before the server starts).
    func photo(
        for place: Place,
        in window: TimeWindow,
        variant: Int,
        shape: ScreenShape,
        passing: Set<PhotoOrigin> = [],
        client: RequestClient = .unknown
    ) async throws -> SourcePhoto {
        if case .cell(let cell) = place {
            for source in self.nearby where !passing.contains(source.origin) {
                if let photo = try await source.photo(for: cell, in: window, variant: variant, shape: shape, client: client) { return photo }
            }
        }
        return try await self.stockPhoto(for: place, in: window, variant: variant, shape: shape)
    }

    /// The line's end: a stock photo, counted in `backdrop_fallbacks_total{kind="stock"}` when it stands in for a
    /// nearby source's.
    func stockPhoto(for place: Place, in window: TimeWindow, variant: Int, shape: ScreenShape) async throws -> SourcePhoto {
        if case .cell = place, !self.nearby.isEmpty { self.metrics.fallback("stock") }
        return try await self.stock.photo(for: place, in: window, variant: variant, shape: shape)
    }

    /// The photo for `place` during `window` if it is known without any upstream call, else nil. Lets a render already
    /// in memory be answered without arming the request's upstream deadline.
    func knownPhoto(for place: Place, in window: TimeWindow, variant: Int, shape: ScreenShape) async -> SourcePhoto? {
        if case .cell(let cell) = place {
            for source in self.nearby {
                switch await source.knownPhoto(for: cell, in: window, variant: variant, shape: shape) {
                case .photo(let photo): return photo
                case .nothing: continue
                case .unknown: return nil  // the full path decides (the next source, stale, or a search)
                }
            }
        }
        return try? await self.stock.photo(for: place, in: window, variant: variant, shape: shape)
    }

    /// The photo's encoded bytes, in the smallest size that covers `size` (a stock photo has one), for `client`'s
    /// request (a download is charged to its share of the source's media budget).
    func imageData(for photo: SourcePhoto, covering size: PixelSize, client: RequestClient = .unknown) async throws -> EncodedImage {
        guard let source = self.source(of: photo) else { return try await self.stock.imageData(for: photo, covering: size) }
        return try await source.imageData(for: photo, covering: size, client: client)
    }

    /// Reports that `photo` could not be downloaded or decoded, or failed the quality gate, so that `place` gets
    /// another photo this window.
    func markUnusable(_ photo: SourcePhoto, place: Place, window: TimeWindow) async {
        guard case .cell(let cell) = place, let source = self.source(of: photo) else { return }
        await source.markUnusable(photo, cell: cell, window: window)
    }

    /// Reports that `photo`'s pixels show people though it was chosen as free of them, so that `place`'s photos are
    /// ranked again knowing it.
    func markPeople(_ photo: SourcePhoto, place: Place, window: TimeWindow) async {
        guard case .cell(let cell) = place, let source = self.source(of: photo) else { return }
        await source.markPeople(photo, cell: cell, window: window)
    }

    /// What to show for `place` when a request's upstream deadline has passed: a photo that needs no upstream call (a
    /// source's earlier photo of the cell, stale, if its bytes are at hand; else a stock photo). It also tells the
    /// source waited on that it is too slow now, so that the next requests do not wait for it again at once.
    func fallback(for place: Place, in window: TimeWindow, variant: Int, shape: ScreenShape) async throws -> SourcePhoto {
        if case .cell(let cell) = place {
            for source in self.nearby {
                if let photo = await source.fallback(for: cell, in: window, variant: variant, shape: shape) { return photo }
            }
        }
        return try await self.stockPhoto(for: place, in: window, variant: variant, shape: shape)
    }

    /// Whether a photo from the line's end (stock, or stale) stands in for a better one that may come back soon, so
    /// that answers showing one are cached only briefly. A line of stock photos alone has nothing better to offer.
    var substitutesFallbacks: Bool { !self.nearby.isEmpty }

    private func source(of photo: SourcePhoto) -> NearbyPhotoSource? {
        self.nearby.first { $0.origin == photo.origin }
    }
}
