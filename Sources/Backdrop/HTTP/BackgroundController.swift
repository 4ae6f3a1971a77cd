import Foundation
import Hummingbird
import Logging
import NIOCore

/// `GET /background`: the background image for a place; `GET /background.json`: what it shows, its cell URLs and
/// its blurred layer inline.
package struct BackgroundController: Sendable {
    let photos: any PhotoSource
    let renderer: Renderer
    let renders: RenderCache
    /// Blurred previews for `/background.json`, per cell-window like the renders: about 2 kB each.
    let previews: MemoryLRU<RenderedImageKey, BlurredPreview>
    let clock: any WallClock
    let geohashPrecision: Int
    let windowSeconds: Int
    /// `max-age` cap for fallbacks; nil when the source's fallbacks stand in for nothing better (stock photos alone).
    let fallbackMaxAge: Int?
    /// How long past its window a cache may keep serving an answer while it fetches the next one; 0 says nothing.
    let staleWhileRevalidate: Int
    let defaults: RenderSpec
    /// How long one request may wait on upstream work (searches, downloads, and the render they lead to) before it
    /// gets its fallback.
    let upstreamDeadline: Duration
    /// Tells clients apart, so that the render queue serves them in turn.
    let clients: ClientAddress
    let metrics: BackdropMetrics

    package init(
        photos: any PhotoSource,
        renderer: Renderer,
        renders: RenderCache,
        clock: any WallClock,
        geohashPrecision: Int,
        windowSeconds: Int,
        fallbackMaxAge: Int?,
        staleWhileRevalidate: Int = 0,
        defaults: RenderSpec,
        upstreamDeadline: Duration = .seconds(10),
        clients: ClientAddress = ClientAddress(trustedProxies: []),
        previewsMemory: Int = 8 << 20,
        metrics: BackdropMetrics = BackdropMetrics()
    ) {
        // + the placeholders, about 60 bytes, and the entry's own keeping
        self.previews = MemoryLRU(budget: previewsMemory, maxEntries: max(1, previewsMemory / 2048)) { $0.webp.count + 1024 + 128 }
        self.photos = photos
        self.renderer = renderer
        self.renders = renders
        self.clock = clock
        self.geohashPrecision = geohashPrecision
        self.windowSeconds = windowSeconds
        self.fallbackMaxAge = fallbackMaxAge
        self.staleWhileRevalidate = staleWhileRevalidate
        self.defaults = defaults
        self.upstreamDeadline = upstreamDeadline
        self.clients = clients
        self.metrics = metrics
    }

    /// The controller as the settings describe it.
    init(settings: Settings, photos: any PhotoSource, renderer: Renderer, renders: RenderCache, clock: any WallClock, metrics: BackdropMetrics) {
        self.init(
            photos: photos,
            renderer: renderer,
            renders: renders,
            clock: clock,
            geohashPrecision: settings.photos.geohashPrecision,
            windowSeconds: settings.photos.windowSeconds,
            fallbackMaxAge: photos.substitutesFallbacks ? settings.cache.fallbackMaxAgeSeconds : nil,
            staleWhileRevalidate: settings.cache.staleWhileRevalidateSeconds,
            defaults: settings.renderDefaults,
            upstreamDeadline: .milliseconds(Int64(settings.flickr.requestDeadlineSeconds * 1000)),
            clients: ClientAddress(trustedProxies: settings.server.trustedProxies),
            previewsMemory: settings.cache.previewsMemoryMB << 20,
            metrics: metrics
        )
    }

    package func addRoutes(to router: Router<some RemoteAddressRequestContext>) {
        router.get(Route.background.routerPath, use: self.background)
        router.get(Route.backgroundInfo.routerPath, use: self.backgroundInfo)
    }

    @Sendable func background(_ request: Request, context: some RemoteAddressRequestContext) async throws -> Response {
        let query = try BackgroundQuery(query: request.uri.query, defaults: self.defaults, precision: self.geohashPrecision)
        let format = try query.format ?? Self.negotiatedFormat(request.headers)
        let spec = query.spec.with(format: format)
        let now = self.clock.now()
        let window = TimeWindow(containing: now, seconds: self.windowSeconds)
        let render = try await self.render(
            place: query.place,
            window: window,
            spec: spec,
            for: self.client(context.remoteAddress, request.headers),
            logger: context.logger
        )
        var headers = render.headers
        headers[.cacheControl] = self.cacheControl(render.photo, window: window, now: now)
        headers[BackdropHeaders.link] = "<\(CellURL.path(place: query.place, spec: spec, defaults: self.defaults))>; rel=\"canonical\""
        if query.format == nil { headers[.vary] = "Accept" }
        if Self.isNotModified(request.headers, etag: render.etag, lastModified: render.created) {
            headers[.contentLength] = nil
            self.metrics.image(format, status: 304)
            return Response(status: .notModified, headers: headers)
        }
        self.metrics.image(format, status: 200)
        if request.method == .get, let file = render.file { FileBodies.current?.offer(render.body, file: file) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: render.body))
    }

    /// The format `Accept` chooses (see ``FormatNegotiation``); a 406 when it accepts none of them.
    static func negotiatedFormat(_ headers: HTTPFields) throws(APIError) -> OutputFormat {
        guard let format = FormatNegotiation.choose(accept: headers[.accept]) else {
            throw APIError(
                status: .notAcceptable,
                message:
                    "no acceptable image type: /background answers \(OutputFormat.preference.map(\.mediaType).joined(separator: ", ")); send Accept with one of them or */*, or give format",
                headers: [.vary: "Accept"]
            )
        }
        return format
    }

    /// The place's render, from the cache or made now (see ``produce(place:window:logger:cached:make:)``).
    func render(
        place: Place,
        window: TimeWindow,
        spec: RenderSpec,
        for client: @escaping @Sendable () -> RenderClient = { .unknown },
        logger: Logger
    ) async throws -> CachedRender {
        let key = { @Sendable (photo: SourcePhoto) in RenderedImageKey(place: place, window: window, photo: photo, spec: spec) }
        return try await self.produce(place: place, window: window, logger: logger) { photo in
            await self.renders.cached(key(photo))
        } make: { photo in
            try await self.renders.render(key(photo)) { try await self.renderer.render(photo, from: self.photos, spec: spec, for: client()) }
        }
    }

    /// The place's light-effect layer in about a kilobyte, from memory or made now, kept for the cell-window like the
    /// renders (see ``produce(place:window:logger:cached:make:)``).
    func preview(
        place: Place,
        window: TimeWindow,
        size: PixelSize,
        style: EffectStyle,
        for client: @escaping @Sendable () -> RenderClient = { .unknown },
        logger: Logger
    ) async throws -> BlurredPreview {
        let spec = RenderSpec(size: size, style: style, blurHundredths: 100)
        let key = { @Sendable (photo: SourcePhoto) in RenderedImageKey(place: place, window: window, photo: photo, spec: spec) }
        return try await self.produce(place: place, window: window, logger: logger) { photo in
            await self.previews.cached(key(photo))
        } make: { photo in
            try await self.previews.value(for: key(photo)) {
                try await self.renderer.preview(photo, from: self.photos, size: size, style: style, for: client())
            }
        }
    }

    /// What a request makes of the place's photo (a render, a preview), from memory or made now, within the upstream
    /// deadline; past it, from the source's fallback photo (stale or stock, which needs no upstream call). Something
    /// already in memory needs nothing upstream: answered without arming the deadline (which costs a task group per
    /// request, about a sixth of a cache hit's time).
    private func produce<Made: Sendable>(
        place: Place,
        window: TimeWindow,
        logger: Logger,
        cached: (SourcePhoto) async -> Made?,
        make: @escaping @Sendable (SourcePhoto) async throws -> Made
    ) async throws -> Made {
        if let photo = await self.photos.knownPhoto(for: place, in: window), let hit = await cached(photo) {
            return hit
        }
        do {
            return try await withDeadline(self.upstreamDeadline) {
                try await self.produceFromChosen(place: place, window: window, logger: logger, make: make)
            }
        } catch is DeadlinePassed {
            return try await make(try await self.deadlineFallback(place: place, window: window, logger: logger))
        }
    }

    private func deadlineFallback(place: Place, window: TimeWindow, logger: Logger) async throws -> SourcePhoto {
        self.metrics.deadlinePassed()
        logger.warning("upstream deadline passed: serving a fallback photo", metadata: ["cell": "\(place)"])
        return try await self.photos.fallback(for: place, in: window)
    }

    /// `make` applied to the place's chosen photo. A remote photo that cannot be downloaded or decoded is reported to
    /// the source, which offers another (once) and then a stock photo.
    private func produceFromChosen<Made: Sendable>(
        place: Place,
        window: TimeWindow,
        logger: Logger,
        make: @Sendable (SourcePhoto) async throws -> Made
    ) async throws -> Made {
        var photo = try await self.photos.photo(for: place, in: window)
        var failures = 0
        while true {
            do {
                return try await make(photo)
            } catch  where failures < 3 && photo.origin != .stock && !(error is RenderBusy) && !(error is CancellationError) {
                failures += 1
                logger.warning("photo unusable, choosing another", metadata: ["photo": "\(photo.id)", "cell": "\(place)", "error": "\(error)"])
                await self.photos.markUnusable(photo, place: place, window: window)
                photo = try await self.photos.photo(for: place, in: window)
            }
        }
    }

    /// Who a request is for, worked out only when it needs a render (cache hits never do).
    private func client(_ peer: SocketAddress?, _ headers: HTTPFields) -> @Sendable () -> RenderClient {
        let clients = self.clients
        return { clients.client(peer: peer?.ipAddress, headers: headers) }
    }

    /// `If-None-Match` (weak comparison, as RFC 9110 asks for it) wins over `If-Modified-Since`.
    static func isNotModified(_ headers: HTTPFields, etag: String, lastModified: Date) -> Bool {
        if let tags = headers[.ifNoneMatch] {
            return tags.split(separator: ",").contains { tag in
                let tag = tag.trimmingCharacters(in: .whitespaces)
                return tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == etag
            }
        }
        if let since = headers[.ifModifiedSince].flatMap(HTTPDate.parse) {
            return lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        }
        return false
    }

    /// Until the window ends, then stale while a cache revalidates (`stale-while-revalidate`, so that a CDN or browser
    /// shows the old window's image while it fetches the new one); stock and stale fallbacks only briefly and never
    /// past that, so that clients return for the real photo.
    private func cacheControl(_ photo: SourcePhoto, window: TimeWindow, now: Date) -> String {
        let left = window.secondsLeft(at: now)
        guard self.isCapped(photo), let cap = self.fallbackMaxAge else {
            return self.staleWhileRevalidate > 0
                ? "public, max-age=\(left), stale-while-revalidate=\(self.staleWhileRevalidate)" : "public, max-age=\(left)"
        }
        return "public, max-age=\(min(left, cap))"
    }

    /// Whether `photo` stands in for the real one (stock or stale while Flickr fails), so must not be kept for long.
    private func isCapped(_ photo: SourcePhoto) -> Bool {
        photo.isFallback && self.fallbackMaxAge != nil
    }

    @Sendable func backgroundInfo(_ request: Request, context: some RemoteAddressRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request.uri.query, allowed: ["lat", "lon", "width", "height", "style"])
        let place = try BackgroundQuery.place(parameters, coordinate: try BackgroundQuery.coordinate(parameters), precision: self.geohashPrecision)
        let spec = try BackgroundQuery.spec(parameters, defaults: self.defaults)
        let now = self.clock.now()
        let window = TimeWindow(containing: now, seconds: self.windowSeconds)
        let preview = try await self.preview(
            place: place,
            window: window,
            size: spec.size,
            style: spec.style,
            for: self.client(context.remoteAddress, request.headers),
            logger: context.logger
        )
        let photo = preview.photo
        // The JSON itself is always acceptable; its image URLs take the format its Accept prefers (PNG by default).
        let format = FormatNegotiation.choose(accept: request.headers[.accept]) ?? .png
        let images = BackgroundInfo.Images(format: format, preview: preview) { format, blur in
            CellURL.path(
                place: place,
                spec: RenderSpec(size: spec.size, style: spec.style, blurHundredths: blur, format: format),
                defaults: self.defaults
            )
        }
        var headers = BackdropHeaders.attribution(of: photo, place: place)
        headers[.vary] = "Accept"
        return try .json(
            BackgroundInfo(photo: photo, place: place, window: window, now: now, images: images),
            headers: headers,
            cacheControl: self.cacheControl(photo, window: window, now: now)
        )
    }
}
