import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Builds the service from settings. Collaborators can be passed in (tests use fixtures and a fixed clock).
public func buildApplication(
    _ settings: Settings,
    photos: (any PhotoSource)? = nil,
    clock: any WallClock = SystemClock(),
    logger: Logger? = nil,
    metrics: BackdropMetrics = BackdropMetrics()
) async throws -> some ApplicationProtocol {
    var logger = logger ?? Logger(label: "backdrop")
    logger.logLevel = Logger.Level(rawValue: settings.server.logLevel.rawValue) ?? .info

    let library = try StockPhotoLibrary.load(folder: URL(fileURLWithPath: settings.photos.stockFolder), limits: settings.images.limits)
    let stock = StockPhotoSource(library: library)
    var services: [any Service] = []
    var disk: DiskCache?
    // Rendered files held open for sendfile: only with a disk cache, since they are its files.
    let files = settings.cache.folder.isEmpty ? nil : OpenCacheFiles.sizedToDescriptorLimit()
    if let files {
        let cache = DiskCache(folder: URL(fileURLWithPath: settings.cache.folder), budgetBytes: settings.cache.maxMB << 20, clock: clock,
                              logger: logger, metrics: metrics, files: files)
        let entries = await cache.open()
        let policy = CachePolicy(windowSeconds: settings.photos.windowSeconds, renderLifetime: TimeInterval(settings.cache.expirySeconds),
                                 maxStale: TimeInterval(settings.cache.maxStaleHours * 3600))
        await cache.sweep(policy)
        services.append(CacheSweeper(cache: cache, policy: policy, interval: .seconds(60)))
        logger.info("disk cache ready", metadata: ["folder": "\(settings.cache.folder)", "entries": "\(entries)"])
        disk = cache
    }
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
            store: disk,
            maxStale: TimeInterval(settings.cache.maxStaleHours * 3600),
            clock: clock,
            logger: logger,
            metrics: metrics
        )
        logger.notice("serving Flickr photos near each place, stock photos as fallback", metadata: ["stockPhotos": "\(library.entries.count)"])
    }
    let photos = chosen
    let renderer = Renderer(png: settings.render.png, limits: settings.images.limits, memoryBudget: settings.render.memoryCacheMB << 20,
                            maxPendingRenders: settings.render.maxPending)
    // Renders the connection answers by itself; they need open files, so a disk cache.
    let hot = files.map { files in
        HotRenders(limit: files.limit / 2, clock: clock, windowSeconds: settings.photos.windowSeconds,
                   geohashPrecision: settings.photos.geohashPrecision, defaults: settings.renderDefaults)
    }
    let renders = RenderCache(memoryBudget: settings.cache.memoryMB << 20, disk: disk, clock: clock, metrics: metrics)
    let router = buildRouter(
        settings: settings,
        background: BackgroundController(photos: photos, renderer: renderer, renders: renders, clock: clock,
                                         geohashPrecision: settings.photos.geohashPrecision, windowSeconds: settings.photos.windowSeconds,
                                         fallbackMaxAge: photos is StockPhotoSource ? nil : settings.cache.fallbackMaxAgeSeconds,
                                         defaults: settings.renderDefaults, hot: hot),
        health: HealthController(stockPhotoCount: library.entries.count),
        metrics: metrics
    )
    let serverName = "Backdrop"
    var server = HTTPServerBuilder.http1()
    if let files, let hot { server = .backdrop(files: files, hot: hot, metrics: metrics, serverName: serverName) }
    return Application(
        router: router,
        server: server,
        configuration: .init(address: .hostname(settings.server.host, port: settings.server.port), serverName: serverName),
        services: services,
        logger: logger
    )
}

func buildRouter(settings: Settings, background: BackgroundController, health: HealthController, metrics: BackdropMetrics) -> Router<BasicRequestContext> {
    let routes: [String: [HTTPRequest.Method]] = [
        "/background": [.get, .head], "/background.json": [.get, .head], "/health": [.get, .head], "/metrics": [.get, .head], "/": [.get, .head],
        "/openapi.yaml": [.get, .head],
    ]
    let router = Router(options: .autoGenerateHeadEndpoints)
    router.addMiddleware {
        RequestLogMiddleware(metrics: metrics, routes: Set(routes.keys))
        ErrorMiddleware()
        MethodNotAllowedMiddleware(routes: routes)
        FileMiddleware(settings.server.publicFolder, searchForIndexHtml: true)
    }
    background.addRoutes(to: router)
    health.addRoutes(to: router)
    MetricsController(metrics: metrics).addRoutes(to: router)
    OpenAPIController(publicFolder: settings.server.publicFolder).addRoutes(to: router)
    return router
}
