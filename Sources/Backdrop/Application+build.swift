import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

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
    let stock = StockPhotoSource(library: library)
    var services: [any Service] = []
    let chosen: any PhotoSource
    if let photos {
        chosen = photos
    } else if settings.flickr.apiKey.isEmpty {
        logger.warning("no Flickr API key configured: serving stock photos only", metadata: ["stockPhotos": "\(library.entries.count)"])
        chosen = stock
    } else {
        let http = HTTPClient(
            eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
            configuration: .init(redirectConfiguration: .disallow,
                                 timeout: .init(connect: .milliseconds(Int64(settings.flickr.connectTimeoutSeconds * 1000))))
        )
        services.append(HTTPClientService(client: http))
        let total = TimeAmount.milliseconds(Int64(settings.flickr.totalTimeoutSeconds * 1000))
        chosen = FlickrPhotoSource(
            settings: settings.flickr,
            searcher: FlickrRESTClient(http: http, endpoint: settings.flickr.endpoint, apiKey: settings.flickr.apiKey, timeout: total,
                                       allowedLicenses: settings.flickr.allowedLicenses),
            downloader: ImageDownloader(http: http, policy: ImageHostPolicy(extraHosts: settings.flickr.extraImageHosts),
                                        maxBytes: settings.flickr.maxDownloadMB << 20, timeout: total),
            stock: stock,
            clock: clock,
            logger: logger
        )
        logger.notice("serving Flickr photos near each place, stock photos as fallback", metadata: ["stockPhotos": "\(library.entries.count)"])
    }
    let photos = chosen
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
        services: services,
        logger: logger
    )
}

func buildRouter(settings: Settings, background: BackgroundController, health: HealthController) -> Router<BasicRequestContext> {
    let router = Router(options: .autoGenerateHeadEndpoints)
    router.addMiddleware {
        RequestLogMiddleware()
        ErrorMiddleware()
        MethodNotAllowedMiddleware(routes: [
            "/background": [.get, .head], "/background.json": [.get, .head], "/health": [.get, .head], "/": [.get, .head],
        ])
        FileMiddleware(settings.server.publicFolder, searchForIndexHtml: true)
    }
    background.addRoutes(to: router)
    health.addRoutes(to: router)
    return router
}
