import Foundation
import Hummingbird

/// `GET /background`: the blurred background PNG for a place.
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
    }

    @Sendable func background(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = try BackgroundQuery(query: request.uri.query, defaults: self.defaults)
        let now = self.clock.now()
        let window = TimeWindow(containing: now, seconds: self.windowSeconds)
        let place: Place = query.coordinate.map {
            .cell(Geohash(latitude: $0.latitude, longitude: $0.longitude, precision: self.geohashPrecision))
        } ?? .unknown
        let photo = try await self.photos.photo(for: place, in: window)
        let key = RenderedImageKey(place: place, window: window, photoID: photo.id, spec: query.spec)
        let png: [UInt8]
        if let cached = await self.cache.cachedImage(for: key) {
            png = cached
        } else {
            png = try await self.renderer.render(photo, from: self.photos, spec: query.spec)
            await self.cache.store(png, for: key)
        }
        var headers = BackdropHeaders.attribution(of: photo, place: place)
        headers[.contentType] = "image/png"
        headers[.contentLength] = String(png.count)
        headers[.cacheControl] = "public, max-age=\(window.secondsLeft(at: now))"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: png)))
    }
}
