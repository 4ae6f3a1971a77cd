import Foundation
import Logging
import Tracing

/// Which image answers a request for a place: the photo the line chooses, its render or preview from memory, disk or
/// made now, within the upstream deadline; an unusable photo replaced by the next (``PhotoAttempts``) down to the
/// stock photos, and past the deadline the line's fallback (stale or stock). A photo's fault never reaches the client.
/// The HTTP layer parses, calls this, and builds the response.
package struct Backgrounds: Sendable {
    let photos: PhotoLine
    let renderer: Renderer
    let renders: RenderCache
    /// Blurred previews for `/background.json`, per cell-window like the renders: about 2 kB each with placeholders.
    let previews: MemoryLRU<RenderedImageKey, BlurredPreview>
    /// How long one request may wait on upstream work (searches, downloads, and the render they lead to) before it
    /// gets its fallback.
    let upstreamDeadline: Duration
    let metrics: BackdropMetrics

    init(photos: PhotoLine, renderer: Renderer, renders: RenderCache, previewsMemory: Int, upstreamDeadline: Duration, metrics: BackdropMetrics) {
        self.photos = photos
        self.renderer = renderer
        self.renders = renders
        // + the placeholders, about 60 bytes, and the entry's own keeping
        self.previews = MemoryLRU(budget: previewsMemory, maxEntries: max(1, previewsMemory / 2048)) { $0.webp.count + 1024 + 128 }
        self.upstreamDeadline = upstreamDeadline
        self.metrics = metrics
    }

    /// As the settings describe it, with its render queue and renderer (`render`, decoding within `images`) and
    /// render cache (`cache`, kept on `disk` too, if given, each render with its `headers`); `photos` waited on for
    /// `upstreamDeadline` at most.
    init(
        render: Settings.Render,
        images: Settings.Images,
        cache: Settings.Cache,
        photos: PhotoLine,
        upstreamDeadline: Duration,
        disk: DiskCache?,
        headers: @escaping RenderHeaders,
        clock: any WallClock,
        metrics: BackdropMetrics
    ) {
        let gate = RenderGate(
            maxWait: render.maxQueueWait,
            maxJobs: render.effectiveMaxPending,
            workers: render.effectiveWorkers,
            metrics: metrics
        )
        self.init(
            photos: photos,
            renderer: Renderer(
                encoders: render.encoders,
                limits: images.limits,
                memoryBudget: render.preparedImagesMemoryMB << 20,
                gate: gate,
                metrics: metrics
            ),
            renders: RenderCache(
                memoryBudget: cache.renderedImagesMemoryMB << 20,
                disk: disk,
                clock: clock,
                metrics: metrics,
                headers: headers
            ),
            previewsMemory: cache.previewsMemoryMB << 20,
            upstreamDeadline: upstreamDeadline,
            metrics: metrics
        )
    }

    /// The place's render, from the cache or made now (see ``produce(_:place:window:variant:logger:cached:make:)``).
    func render(
        place: Place,
        window: TimeWindow,
        variant: Int = 0,
        spec: RenderSpec,
        for client: @escaping @Sendable () -> RequestClient = { .unknown },
        logger: Logger
    ) async throws -> CachedRender {
        let key = { @Sendable (photo: SourcePhoto) in RenderedImageKey(place: place, window: window, photo: photo, spec: spec) }
        let shape = ScreenShape(spec.size)
        return try await self.produce(
            "background.render",
            place: place,
            window: window,
            variant: variant,
            shape: shape,
            client: client,
            logger: logger
        ) {
            photo in
            await self.renders.cached(key(photo))
        } make: { photo in
            try await self.renders.render(key(photo)) {
                let asker = client()
                return try await self.renderer.render(
                    photo,
                    load: { photo, size in try await self.photos.imageData(for: photo, covering: size, client: asker) },
                    spec: spec,
                    for: asker
                )
            }
        }
    }

    /// The place's light-effect layer in about a kilobyte, from memory or made now, kept for the cell-window like the
    /// renders (see ``produce(_:place:window:variant:logger:cached:make:)``).
    func preview(
        place: Place,
        window: TimeWindow,
        variant: Int = 0,
        size: PixelSize,
        style: EffectStyle,
        crop: CropMode = .attention,
        for client: @escaping @Sendable () -> RequestClient = { .unknown },
        logger: Logger
    ) async throws -> BlurredPreview {
        let spec = RenderSpec(size: size, style: style, blurHundredths: 100, crop: crop)
        let key = { @Sendable (photo: SourcePhoto) in RenderedImageKey(place: place, window: window, photo: photo, spec: spec) }
        let shape = ScreenShape(size)
        return try await self.produce(
            "background.preview",
            place: place,
            window: window,
            variant: variant,
            shape: shape,
            client: client,
            logger: logger
        ) {
            photo in
            await self.previews.cached(key(photo))
        } make: { photo in
            try await self.previews.value(for: key(photo)) {
                let asker = client()
                return try await self.renderer.preview(
                    photo,
                    load: { photo, size in try await self.photos.imageData(for: photo, covering: size, client: asker) },
                    size: size,
                    style: style,
                    crop: crop,
                    for: asker
                )
            }
        }
    }

    /// What a request makes of the place's photo (a render, a preview), from memory or made now, within the upstream
    /// deadline; past it, from the line's fallback photo (stale or stock, which needs no upstream call). Something
    /// already in memory needs nothing upstream: answered without arming the deadline (which costs a task group per
    /// request, about a sixth of a cache hit's time).
    private func produce<Made: Sendable>(
        _ name: String,
        place: Place,
        window: TimeWindow,
        variant: Int,
        shape: ScreenShape,
        client: @escaping @Sendable () -> RequestClient,
        logger: Logger,
        cached: (SourcePhoto) async -> Made?,
        make: @escaping @Sendable (SourcePhoto) async throws -> Made
    ) async throws -> Made {
        if let photo = await self.photos.knownPhoto(for: place, in: window, variant: variant, shape: shape), let hit = await cached(photo) {
            RequestTrace.note("backdrop.cache", "memory")
            return hit
        }
        RequestTrace.note("backdrop.cache", "miss")
        return try await withRequestSpan(name) { span in
            let attempts = PhotoAttempts(
                photos: self.photos,
                place: place,
                window: window,
                variant: variant,
                shape: shape,
                client: client(),
                logger: logger,
                span: span
            )
            do {
                return try await withDeadline(self.upstreamDeadline) {
                    try await attempts.make(
                        from: try await self.choose(place: place, window: window, variant: variant, shape: shape, client: attempts.client),
                        make
                    )
                }
            } catch is DeadlinePassed {
                span.addEvent("upstream deadline passed")
                RequestTrace.note("backdrop.fallback", "deadline")
                self.metrics.deadlinePassed()
                logger.warning("upstream deadline passed: serving a fallback photo", metadata: ["cell": "\(place)"])
                let photo = try await self.photos.fallback(for: place, in: window, variant: variant, shape: shape)
                span.addEvent(SpanEvent(name: "fallback photo", attributes: ["backdrop.photo.source": "\(photo.sourceLabel)"]))
                return try await attempts.make(from: photo, make, replacing: false)
            }
        }
    }

    /// The line's photo for the place, window and class of screen, in a span saying where it came from.
    private func choose(place: Place, window: TimeWindow, variant: Int, shape: ScreenShape, client: RequestClient) async throws -> SourcePhoto {
        try await withRequestSpan("photo.choose") { span in
            span.attributes["backdrop.photo.variant"] = variant
            span.attributes["backdrop.screen.shape"] = shape.rawValue
            let photo = try await self.photos.photo(for: place, in: window, variant: variant, shape: shape, client: client)
            span.attributes["backdrop.photo.source"] = photo.origin.rawValue
            span.attributes["backdrop.photo.stale"] = photo.stale
            return photo
        }
    }
}
