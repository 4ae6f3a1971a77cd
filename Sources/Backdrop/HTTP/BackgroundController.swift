import Foundation
import Hummingbird
import Logging

/// `GET /background`: the blurred background PNG for a place; `GET /background.json`: what it would show.
public struct BackgroundController: Sendable {
    let photos: any PhotoSource
    let renderer: Renderer
    let cache: any RenderedImageCache
    let clock: any WallClock
    let geohashPrecision: Int
    let windowSeconds: Int
    let defaults: RenderSpec

    public init(photos: any PhotoSource, renderer: Renderer, cache: any RenderedImageCache, clock: any WallClock,
                geohashPrecision: Int, windowSeconds: Int, defaults: RenderSpec) {
        self.photos = photos
        self.renderer = renderer
        self.cache = cache
        self.clock = clock
        self.geohashPrecision = geohashPrecision
        self.windowSeconds = windowSeconds
        self.defaults = defaults
    }

    public func addRoutes(to router: Router<some RequestContext>) {
        router.get("background", use: self.background)
        router.get("background.json", use: self.backgroundInfo)
    }

    @Sendable func background(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = try BackgroundQuery(query: request.uri.query, defaults: self.defaults)
        let now = self.clock.now()
        let window = TimeWindow(containing: now, seconds: self.windowSeconds)
        let place = self.place(query.coordinate)
        let (photo, png) = try await self.render(place: place, window: window, spec: query.spec, logger: context.logger)
        return .png(png, headers: BackdropHeaders.attribution(of: photo, place: place), cacheControl: "public, max-age=\(window.secondsLeft(at: now))")
    }

    /// Renders the place's photo; a remote photo that cannot be downloaded or decoded is reported to the source,
    /// which offers another (once) and then a stock photo.
    func render(place: Place, window: TimeWindow, spec: RenderSpec, logger: Logger) async throws -> (SourcePhoto, [UInt8]) {
        var photo = try await self.photos.photo(for: place, in: window)
        for _ in 0..<3 {
            let key = RenderedImageKey(place: place, window: window, photoID: photo.id, spec: spec)
            if let cached = await self.cache.cachedImage(for: key) { return (photo, cached) }
            do {
                let png = try await self.renderer.render(photo, from: self.photos, spec: spec)
                await self.cache.store(png, for: key)
                return (photo, png)
            } catch where photo.origin != .stock && !(error is RenderBusy) && !(error is CancellationError) {
                logger.warning("photo unusable, choosing another", metadata: ["photo": "\(photo.id)", "cell": "\(place)", "error": "\(error)"])
                await self.photos.markUnusable(photo, place: place, window: window)
                photo = try await self.photos.photo(for: place, in: window)
            }
        }
        return (photo, try await self.renderer.render(photo, from: self.photos, spec: spec))
    }

    @Sendable func backgroundInfo(_ request: Request, context: some RequestContext) async throws -> Response {
        let parameters = try QueryParameters(request.uri.query, allowed: ["lat", "lon"])
        let coordinate = try BackgroundQuery.coordinate(parameters)
        let now = self.clock.now()
        let window = TimeWindow(containing: now, seconds: self.windowSeconds)
        let place = self.place(coordinate)
        let photo = try await self.photos.photo(for: place, in: window)
        return try .json(BackgroundInfo(photo: photo, place: place, window: window, now: now, coordinate: coordinate),
                         headers: BackdropHeaders.attribution(of: photo, place: place),
                         cacheControl: "public, max-age=\(window.secondsLeft(at: now))")
    }

    private func place(_ coordinate: BackgroundQuery.Coordinate?) -> Place {
        coordinate.map { .cell(Geohash(latitude: $0.latitude, longitude: $0.longitude, precision: self.geohashPrecision)) } ?? .unknown
    }
}
