import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Assembles the service from settings, handing each part its own section; does no I/O itself. Reading the stock photos runs before the server starts,
/// the disk cache's index rebuild and sweeps, the database client and the HTTP client in services. Tests pass a fixed
/// clock, a logger that records, and `middleware` in front of Backdrop's own that sees every request and response.
package func buildApplication(
    _ settings: Settings,
    clock: any WallClock = SystemClock(),
    logger: Logger? = nil,
    metrics: BackdropMetrics = BackdropMetrics(),
    middleware: [any MiddlewareProtocol<Request, Response, BackdropRequestContext>] = [],
    services: [any Service] = []
) async throws -> some ApplicationProtocol {
    let logger = settings.logger(logger)
    let descriptors = settings.descriptors()
    let stock = StockPhotoSource(
        folder: URL(fileURLWithPath: settings.photos.stockFolder),
        limits: settings.images.limits,
        deny: PhotoDenylist(settings.photos.deny)
    )
    let sweeper = CacheSweeper.make(
        settings: settings.cache,
        windowSeconds: settings.photos.windowSeconds,
        openFiles: descriptors.openFiles,
        clock: clock,
        logger: logger,
        metrics: metrics
    )
    let postgres = try PostgresCoordinator.make(
        cluster: settings.cluster,
        flickr: settings.flickr,
        windowSeconds: settings.photos.windowSeconds,
        clock: clock,
        logger: logger,
        metrics: metrics
    )
    let coordinator: any ClusterCoordinator = postgres ?? LocalCoordinator(callsPerHour: settings.flickr.callsPerHour, clock: clock, metrics: metrics)
    let photos = PhotoSupply.make(
        photos: settings.photos,
        flickr: settings.flickr,
        commons: settings.commons,
        shared: NearbyPhotoSource.Shared(
            maxStale: settings.cache.maxStale,
            deny: PhotoDenylist(settings.photos.deny),
            cellCacheEntries: settings.flickr.cellCacheEntries
        ),
        expectedReplicas: settings.cluster.expectedReplicas,
        stock: stock,
        store: sweeper?.cache,
        coordinator: coordinator,
        postgres: postgres,
        clock: clock,
        logger: logger,
        metrics: metrics
    )
    let openAPI = OpenAPIController(publicFolder: settings.server.publicFolder)
    let backgrounds = Backgrounds(
        render: settings.render,
        images: settings.images,
        cache: settings.cache,
        photos: photos.source,
        upstreamDeadline: settings.flickr.requestDeadline,
        disk: sweeper?.cache,
        clock: clock,
        metrics: metrics
    )
    let router = buildRouter(
        server: settings.server,
        telemetry: settings.telemetry,
        background: BackgroundController(
            photos: settings.photos,
            cache: settings.cache,
            defaults: settings.render.defaults,
            clients: settings.server.clientAddress,
            backgrounds: backgrounds,
            clock: clock,
            metrics: metrics
        ),
        health: HealthController(stock: stock, cluster: coordinator),
        openAPI: openAPI,
        metrics: metrics,
        middleware: middleware
    )
    var app = Application(
        router: router,
        server: .backdrop(settings: settings.server, metrics: metrics),
        configuration: settings.server.application(maxConnections: descriptors.maxConnections, logger: logger),
        // Given services first: they stop last (a trace exporter flushes what the last requests made).
        services: services + [sweeper?.cache.thread as (any Service)?, sweeper, postgres].compactMap { $0 } + photos.services,
        logger: logger
    )
    app.beforeServerStarts {
        let library = try await stock.load()
        try await postgres?.database.start()
        await openAPI.load()
        settings.announceWarnings(descriptors, to: logger)
        for announcement in photos.announcements {
            logger.log(level: announcement.level, "\(announcement.text)", metadata: ["stockPhotos": "\(library.entries.count)"])
        }
    }
    return app
}

/// The routes and middleware. Every path served is in ``Route``; the middleware sees every response.
func buildRouter(
    server: Settings.Server,
    telemetry: Settings.Telemetry,
    background: BackgroundController,
    health: HealthController,
    openAPI: OpenAPIController,
    metrics: BackdropMetrics,
    middleware: [any MiddlewareProtocol<Request, Response, BackdropRequestContext>] = []
) -> Router<BackdropRequestContext> {
    let router = Router(context: BackdropRequestContext.self, options: .autoGenerateHeadEndpoints)
    if telemetry.enabled {
        router.add(
            middleware: TraceMiddleware(
                sampling: TraceSampling(sampler: telemetry.sampler, ratio: telemetry.samplerRatio),
                trust: telemetry.trustIncomingTraceparent,
                proxies: server.clientAddress
            )
        )
    }
    for outer in middleware { router.add(middleware: outer) }
    router.addMiddleware {
        RequestLogMiddleware(metrics: metrics, shed: ShedSummary())
        CORSMiddleware(origins: server.corsOrigins)
        ErrorMiddleware()
        PathGuardMiddleware()
        MethodNotAllowedMiddleware()
        PublicFiles(folder: server.publicFolder, logger: Logger(label: "PublicFiles"))
    }
    background.addRoutes(to: router)
    health.addRoutes(to: router)
    MetricsController(metrics: metrics).addRoutes(to: router)
    openAPI.addRoutes(to: router)
    return router
}
