import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Assembles the service from settings, handing each part its own section; does no I/O itself. Reading the stock
/// photos and migrating the shared database run before the server starts; the disk cache's index rebuild and sweeps,
/// the database client and the HTTP clients in services. Tests pass a fixed clock, a logger that records, and
/// `middleware` in front of Backdrop's own that sees every request and response.
package func buildApplication(
    _ settings: Settings,
    clock: any WallClock = SystemClock(),
    logger: Logger? = nil,
    metrics: BackdropMetrics = BackdropMetrics(),
    middleware: [any MiddlewareProtocol<Request, Response, BackdropRequestContext>] = [],
    services: [any Service] = [],
    resolve: @escaping @Sendable (String) async -> [String] = ImageHostPolicy.systemResolve,
    lateLooks: LateLooks = LateLooks()
) async throws -> some ApplicationProtocol {
    let logger = settings.logger(logger)
    let descriptors = settings.descriptors()
    let sweeper = CacheSweeper.make(
        settings: settings.cache,
        windowSeconds: settings.photos.windowSeconds,
        openFiles: descriptors.openFiles,
        clock: clock,
        logger: logger,
        metrics: metrics
    )
    let replicas = try Replicas(settings.cluster, windowSeconds: settings.photos.windowSeconds, clock: clock, logger: logger, metrics: metrics)
    let photos = PhotoSupply(
        settings,
        store: sweeper?.cache,
        replicas: replicas,
        clock: clock,
        logger: logger,
        metrics: metrics,
        resolve: resolve,
        lateLooks: lateLooks
    )
    // Hits are sent again beneath the router unless middleware of another's or tracing must see every answer.
    let replays = middleware.isEmpty && !settings.telemetry.enabled ? LoopReplays(clock: clock) : nil
    let background = buildBackgroundController(
        settings,
        photos: photos.line,
        disk: sweeper?.cache,
        clock: clock,
        metrics: metrics,
        replaysHits: replays != nil
    )
    let openAPI = OpenAPIController(publicFolder: settings.server.publicFolder)
    let router = buildRouter(
        server: settings.server,
        telemetry: settings.telemetry,
        background: background,
        health: HealthController(stock: photos.line.stock, cluster: replicas),
        openAPI: openAPI,
        metrics: metrics,
        middleware: middleware
    )
    var app = Application(
        router: router,
        server: .backdrop(settings: settings.server, metrics: metrics, replays: replays),
        configuration: settings.server.application(maxConnections: descriptors.maxConnections, logger: logger),
        // Given services first: they stop last (a trace exporter flushes what the last requests made).
        services: services + [sweeper?.cache.thread as (any Service)?, sweeper, replicas.service].compactMap { $0 } + photos.services,
        logger: logger
    )
    app.beforeServerStarts {
        let library = try await photos.line.stock.load()
        try await replicas.start()
        await openAPI.load()
        settings.announceWarnings(descriptors, to: logger)
        for announcement in photos.announcements {
            logger.log(level: announcement.level, "\(announcement.text)", metadata: ["stockPhotos": "\(library.entries.count)"])
        }
    }
    return app
}

/// The photo line the settings describe, its sources sharing the photo store on the disk cache (if any) and taking
/// their budgets from `replicas`; the stock photos (loaded before the server starts) end it.
extension PhotoSupply {
    init(
        _ settings: Settings,
        store: (any PhotoStore)?,
        replicas: Replicas,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics,
        resolve: @escaping @Sendable (String) async -> [String],
        lateLooks: LateLooks
    ) {
        let deny = PhotoDenylist(settings.photos.deny)
        let stock = StockPhotoSource(
            folder: URL(fileURLWithPath: settings.photos.stockFolder),
            extraFolder: settings.photos.extraStockFolder.isEmpty ? nil : URL(fileURLWithPath: settings.photos.extraStockFolder),
            limits: settings.images.limits,
            deny: deny
        )
        let context = PhotoContext(
            clock: clock,
            logger: logger,
            metrics: metrics,
            store: store,
            deny: deny,
            maxStale: settings.cache.maxStale,
            cellCacheEntries: settings.photos.cellCacheEntries,
            keepOut: KeptOut(extra: settings.photos.keepOut),
            resolve: HostAddresses(lookup: resolve, clock: clock).resolve,
            lateLooks: lateLooks
        )
        self.init(settings.photos, flickr: settings.flickr, commons: settings.commons, stock: stock, replicas: replicas, context: context)
    }
}

/// `/background` and `/background.json`: the controller, and the renders and previews it answers from (rendered,
/// cached in memory and on `disk`), its photos from `photos` within `photos.requestDeadlineSeconds`.
func buildBackgroundController(
    _ settings: Settings,
    photos: PhotoLine,
    disk: DiskCache?,
    clock: any WallClock,
    metrics: BackdropMetrics,
    replaysHits: Bool
) -> BackgroundController {
    let backgrounds = Backgrounds(
        render: settings.render,
        images: settings.images,
        cache: settings.cache,
        photos: photos,
        disk: disk,
        headers: BackdropHeaders.render,
        clock: clock,
        metrics: metrics
    )
    return BackgroundController(
        photos: settings.photos,
        cache: settings.cache,
        defaults: settings.render.defaults,
        clients: settings.server.clientAddress,
        backgrounds: backgrounds,
        clock: clock,
        metrics: metrics,
        replaysHits: replaysHits
    )
}

/// The routes and middleware. Every path served is in ``Route``; the middleware sees every response but the hits
/// replayed beneath it (``HitReplays``, off when `middleware` is given or tracing is on).
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
        PublicFiles(folder: server.publicFolder, logger: Logger(label: "Backdrop.PublicFiles"))
    }
    background.addRoutes(to: router)
    health.addRoutes(to: router)
    MetricsController(metrics: metrics).addRoutes(to: router)
    openAPI.addRoutes(to: router)
    return router
}
