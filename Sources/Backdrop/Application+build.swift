import Foundation
import Hummingbird
import Logging

/// Builds the service from settings. Collaborators can be passed in (tests use fixtures and a fixed clock).
public func buildApplication(
    _ settings: Settings,
    photos: (any PhotoSource)? = nil,
    cache: any RenderedImageCache = NoRenderedImageCache(),
    clock: any WallClock = SystemClock(),
    logger: Logger? = nil
) async throws -> some ApplicationProtocol {
    var logger = logger ?? Logger(label: "backdrop")
    logger.logLevel = Logger.Level(rawValue: settings.server.logLevel.rawValue) ?? .info

    let library = try StockPhotoLibrary.load(folder: URL(fileURLWithPath: settings.photos.stockFolder), limits: settings.images.limits)
    let photos = photos ?? StockPhotoSource(library: library)
    if settings.flickr.apiKey.isEmpty {
        logger.notice("no Flickr API key configured: serving stock photos only", metadata: ["stockPhotos": "\(library.entries.count)"])
    } else {
        logger.notice("Flickr is not wired in yet: serving stock photos only", metadata: ["stockPhotos": "\(library.entries.count)"])
    }
    let renderer = Renderer(png: settings.render.png, limits: settings.images.limits, memoryBudget: settings.render.memoryCacheMB << 20,
                            maxPendingRenders: settings.render.maxPending)
    let router = buildRouter(
        settings: settings,
        background: BackgroundController(photos: photos, renderer: renderer, cache: cache, clock: clock,
                                         geohashPrecision: settings.photos.geohashPrecision,
                                         windowSeconds: settings.photos.windowSeconds, defaults: settings.renderDefaults),
        health: HealthController(stockPhotoCount: library.entries.count)
    )
    return Application(
        router: router,
        configuration: .init(address: .hostname(settings.server.host, port: settings.server.port), serverName: "Backdrop"),
        logger: logger
    )
}

func buildRouter(settings: Settings, background: BackgroundController, health: HealthController) -> Router<BasicRequestContext> {
    let router = Router(options: .autoGenerateHeadEndpoints)
    router.addMiddleware {
        RequestLogMiddleware()
        ErrorMiddleware()
        MethodNotAllowedMiddleware(routes: ["/background": [.get, .head], "/health": [.get, .head], "/": [.get, .head]])
        FileMiddleware(settings.server.publicFolder, searchForIndexHtml: true)
    }
    background.addRoutes(to: router)
    health.addRoutes(to: router)
    return router
}
