import Foundation
import Logging
import Tracing

/// Which image answers a request for a place: the photo the line chooses, its render or preview from memory, disk or
/// made now. Which photo, within what time, and what replaces an unusable one is the line's to say
/// (``PhotoLine/serve(place:window:variant:shape:client:logger:span:make:)``); a photo's fault never reaches the client.
/// The HTTP layer parses, calls this, and builds the response.
package struct Backgrounds: Sendable {
    let photos: PhotoLine
    let renderer: Renderer
    let renders: RenderCache
    /// Blurred previews for `/background.json`, per cell-window like the renders: about 2 kB each with placeholders.
    let previews: MemoryLRU<RenderedImageKey, BlurredPreview>

    init(photos: PhotoLine, renderer: Renderer, renders: RenderCache, previewsMemory: Int) {
        self.photos = photos
        self.renderer = renderer
        self.renders = renders
        // + the placeholders, about 60 bytes, and the entry's own keeping
        self.previews = MemoryLRU(budget: previewsMemory, maxEntries: max(1, previewsMemory / 2048)) { $0.webp.count + 1024 + 128 }
    }

    /// As the settings describe it, with its render queue and renderer (`render`, decoding within `images`) and
    /// render cache (`cache`, kept on `disk` too, if given, each render with its `headers`).
    init(
        render: Settings.Render,
        images: Settings.Images,
        cache: Settings.Cache,
        photos: PhotoLine,
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
            previewsMemory: cache.previewsMemoryMB << 20
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

    /// What a request makes of the place's photo (a render, a preview), from memory or made now by the line's way
    /// (its deadline and fallbacks). Something already in memory needs nothing upstream: answered without arming the
    /// deadline (which costs a task group per request, about a sixth of a cache hit's time).
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
            try await self.photos.serve(
                place: place,
                window: window,
                variant: variant,
                shape: shape,
                client: client(),
                logger: logger,
                span: span,
                make: make
            )
        }
    }
}
