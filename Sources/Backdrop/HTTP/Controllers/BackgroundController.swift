import Foundation
import Hummingbird
import Logging
import NIOCore

/// `GET /background`: the background image for a place; `GET /background.json`: what it shows, its cell URLs and
/// its blurred layer inline.
package struct BackgroundController: Sendable {
    /// Which image answers a request: the photo, its render or preview, the deadline and the fallbacks.
    let backgrounds: Backgrounds
    let clock: any WallClock
    let geohashPrecision: Int
    let windowSeconds: Int
    /// `max-age` cap for fallbacks; nil when the source's fallbacks stand in for nothing better (stock photos alone).
    let fallbackMaxAge: Int?
    /// How long past its window a cache may keep serving an answer while it fetches the next one; 0 says nothing.
    let staleWhileRevalidate: Int
    let defaults: RenderSpec
    /// Tells clients apart, so that the render queue serves them in turn.
    let clients: ClientAddress
    let metrics: BackdropMetrics
    /// Whether the transport may send a hit again beneath the router (``HitReplays``).
    let replaysHits: Bool

    /// The controller as the settings describe it: cells and windows from `photos`, answers' lifetimes from `cache`,
    /// what a request leaves out from `defaults`.
    init(
        photos: Settings.Photos,
        cache: Settings.Cache,
        defaults: RenderSpec,
        clients: ClientAddress,
        backgrounds: Backgrounds,
        clock: any WallClock,
        metrics: BackdropMetrics,
        replaysHits: Bool
    ) {
        self.backgrounds = backgrounds
        self.clock = clock
        self.geohashPrecision = photos.geohashPrecision
        self.windowSeconds = photos.windowSeconds
        self.fallbackMaxAge = backgrounds.photos.substitutesFallbacks ? Int(total: cache.fallbackMaxAge / .seconds(1)) : nil
        self.staleWhileRevalidate = Int(total: cache.staleWhileRevalidate / .seconds(1))
        self.defaults = defaults
        self.clients = clients
        self.metrics = metrics
        self.replaysHits = replaysHits
    }

    package func addRoutes(to router: Router<some RemoteAddressRequestContext>) {
        router.get(Route.background.routerPath, use: self.background)
        router.get(Route.backgroundInfo.routerPath, use: self.backgroundInfo)
    }

    @Sendable func background(_ request: Request, context: some RemoteAddressRequestContext) async throws -> Response {
        let query = try BackgroundQuery(query: request.uri.query, defaults: self.defaults, precision: self.geohashPrecision)
        let format = try query.format ?? Self.negotiatedFormat(request.headers)
        let spec = query.spec(in: format)
        let now = self.clock.now()
        let window = TimeWindow(containing: now, seconds: self.windowSeconds)
        let render = try await self.backgrounds.render(
            place: query.place,
            window: window,
            variant: query.variant,
            spec: spec,
            for: self.client(context.remoteAddress, request.headers),
            logger: context.logger
        )
        RequestFacts.record(photo: render.photo, place: query.place, format: format)
        var headers = render.headers
        headers[.cacheControl] = self.cacheControl(render.photo, window: window, now: now)
        let canonical = CellURL.path(place: query.place, variant: query.variant, spec: spec, defaults: self.defaults)
        headers[BackdropHeaders.link] = "<\(canonical)>; rel=\"canonical\""
        if query.format == nil { headers[.vary] = "Accept" }
        if ConditionalRequest.isNotModified(request.headers, etag: render.etag, lastModified: render.created) {
            headers[.contentLength] = nil
            self.metrics.image(format.rawValue, status: 304)
            return Response(status: .notModified, headers: headers)
        }
        self.metrics.image(format.rawValue, status: 200)
        let replay = self.replayTerms(render, window: window, now: now, format: format, place: query.place)
        return .cached(render, headers: headers, fromFile: request.method == .get, replay: replay)
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

    /// Who a request is for, worked out only when it needs a render (cache hits never do).
    private func client(_ peer: SocketAddress?, _ headers: HTTPFields) -> @Sendable () -> RequestClient {
        let clients = self.clients
        return { clients.client(peer: peer?.ipAddress, headers: headers) }
    }

    /// Until the window ends, then stale while a cache revalidates (`stale-while-revalidate`, so that a CDN or browser
    /// shows the old window's image while it fetches the new one); stock and stale fallbacks only briefly and never
    /// past that, so that clients return for the real photo.
    private func cacheControl(_ photo: SourcePhoto, window: TimeWindow, now: Date) -> String {
        let maxAge = self.maxAge(photo, window: window, now: now)
        return self.staleWhileRevalidate > 0 && !self.isCapped(photo)
            ? "public, max-age=\(maxAge), stale-while-revalidate=\(self.staleWhileRevalidate)" : "public, max-age=\(maxAge)"
    }

    /// How long an answer about `photo` may be kept: the rest of its window, or for a fallback at most the cap.
    private func maxAge(_ photo: SourcePhoto, window: TimeWindow, now: Date) -> Int {
        let left = window.secondsLeft(at: now)
        guard self.isCapped(photo), let cap = self.fallbackMaxAge else { return left }
        return min(left, cap)
    }

    /// The terms on which the transport may send a 200 again (``HitReplays``): until its window ends, with
    /// `Cache-Control` written by ``cacheControl(_:window:now:)`` at each sending. Never a stand-in (stock or stale
    /// while the sources fail): the route must ask again, so that the real photo replaces it as soon as it can.
    private func replayTerms(_ render: CachedRender, window: TimeWindow, now: Date, format: OutputFormat, place: Place) -> HitReplays.Terms? {
        guard self.replaysHits, !self.isCapped(render.photo) else { return nil }
        let until = now.addingTimeInterval(TimeInterval(self.maxAge(render.photo, window: window, now: now)))
        return HitReplays.Terms(
            until: until,
            cacheControl: { [self] in self.cacheControl(render.photo, window: window, now: $0) },
            route: Route.background.path,
            format: format.rawValue,
            source: render.photo.sourceLabel,
            cell: place.key,
            metrics: self.metrics
        )
    }

    /// Whether `photo` stands in for the real one (stock or stale while Flickr fails), so must not be kept for long.
    private func isCapped(_ photo: SourcePhoto) -> Bool {
        photo.isFallback && self.fallbackMaxAge != nil
    }

    @Sendable func backgroundInfo(_ request: Request, context: some RemoteAddressRequestContext) async throws -> Response {
        let parameters = try QueryParameters(
            request.uri.query,
            allowed: ["lat", "lon", "cell", "variant", "width", "height", "dpr", "style", "crop"]
        )
        let place = try BackgroundQuery.place(parameters, coordinate: try BackgroundQuery.coordinate(parameters), precision: self.geohashPrecision)
        let variant = try BackgroundQuery.variant(parameters)
        let spec = try BackgroundQuery.spec(parameters, defaults: self.defaults)
        let now = self.clock.now()
        let window = TimeWindow(containing: now, seconds: self.windowSeconds)
        let preview = try await self.backgrounds.preview(
            place: place,
            window: window,
            variant: variant,
            size: spec.size,
            style: spec.style,
            crop: spec.crop,
            for: self.client(context.remoteAddress, request.headers),
            logger: context.logger
        )
        let photo = preview.photo
        // The JSON itself is always acceptable; its image URLs take the format its Accept prefers (PNG by default).
        let format = FormatNegotiation.choose(accept: request.headers[.accept]) ?? .png
        let images = BackgroundInfo.Images(format: format, preview: preview, density: spec.density) { format, blur, density in
            let render = spec.with(density: density)
            guard BackgroundLimits.allows(render.size) else { return nil }
            return CellURL.path(place: place, variant: variant, spec: render.with(blurHundredths: blur).with(format: format), defaults: self.defaults)
        }
        RequestFacts.record(photo: photo, place: place)
        var headers = BackdropHeaders.attribution(of: photo, place: place)
        headers[.vary] = "Accept"
        return try .json(
            BackgroundInfo(photo: photo, place: place, window: window, variant: variant, now: now, preview: preview, spec: spec, images: images),
            headers: headers,
            cacheControl: self.cacheControl(photo, window: window, now: now)
        )
    }
}
