import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Assembles the service from settings; does no I/O itself. Reading the stock photos runs before the server starts,
/// the disk cache's index rebuild and sweeps in a service. Collaborators can be passed in (tests use fixtures and a
/// fixed clock); `middleware` goes in front of Backdrop's own, and sees every request and response.
public func buildApplication(
    _ settings: Settings,
    photos: (any PhotoSource)? = nil,
    clock: any WallClock = SystemClock(),
    logger: Logger? = nil,
    metrics: BackdropMetrics = BackdropMetrics(),
    middleware: [any MiddlewareProtocol<Request, Response, BackdropRequestContext>] = []
) async throws -> some ApplicationProtocol {
    var logger = logger ?? Logger(label: "backdrop")
    logger.logLevel = Logger.Level(rawValue: settings.server.logLevel.rawValue) ?? .info

    let stock = StockPhotoSource(folder: URL(fileURLWithPath: settings.photos.stockFolder), limits: settings.images.limits)
    var services: [any Service] = []
    // Descriptors: cache files held open for sendfile take at most a quarter, connections stay well below the rest.
    let descriptors = DescriptorLimit.current ?? 1024
    let openFiles = OpenFileBudget.sized(settings.cache.openFiles)
    let maxConnections = min(settings.server.maxConnections, max(16, descriptors - openFiles.limit - 256))
    let disk = settings.cache.folder.isEmpty ? nil : DiskCache(folder: URL(fileURLWithPath: settings.cache.folder),
                                                               budgetBytes: settings.cache.maxMB << 20, maxFiles: settings.cache.effectiveMaxFiles,
                                                               clock: clock, logger: logger,
                                                               metrics: metrics, openFiles: openFiles)
    if let disk {
        let policy = CachePolicy(windowSeconds: settings.photos.windowSeconds, renderLifetime: TimeInterval(settings.cache.expirySeconds),
                                 maxStale: TimeInterval(settings.cache.maxStaleHours * 3600))
        services.append(CacheSweeper(cache: disk, policy: policy, interval: .seconds(60), logger: logger))
    }
    let postgres = try Settings.postgresURL(settings.cluster.postgresURL).map {
        try PostgresCoordinator(url: $0, settings: settings, clock: clock, logger: logger, metrics: metrics)
    }
    if let postgres { services.append(postgres) }
    let coordinator: any ClusterCoordinator = postgres
        ?? LocalCoordinator(callsPerHour: settings.flickr.callsPerHour, clock: clock, metrics: metrics)
    let source: any PhotoSource
    let announcement: (level: Logger.Level, text: String)
    if let photos {
        source = photos
        announcement = (.info, "serving photos from \(type(of: photos))")
    } else if settings.flickr.apiKey.isEmpty {
        source = stock
        announcement = (.warning, "no Flickr API key configured: serving stock photos only")
    } else {
        let http = HTTPClient(
            eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
            configuration: .init(redirectConfiguration: .disallow,
                                 timeout: .init(connect: .milliseconds(Int64(settings.flickr.connectTimeoutSeconds * 1000))))
        )
        services.append(HTTPClientService(client: http))
        source = FlickrPhotoSource.make(settings: settings, http: http, stock: stock, store: disk, coordinator: coordinator, clock: clock,
                                        logger: logger, metrics: metrics)
        announcement = (.notice, "serving Flickr photos near each place, stock photos as fallback")
    }
    let gate = RenderGate(maxWait: .milliseconds(settings.render.maxQueueWaitMs), maxJobs: settings.render.effectiveMaxPending)
    let renderer = Renderer(encoders: settings.render.encoders, limits: settings.images.limits,
                            memoryBudget: settings.render.preparedImagesMemoryMB << 20, gate: gate)
    let renders = RenderCache(memoryBudget: settings.cache.renderedImagesMemoryMB << 20, disk: disk, clock: clock, metrics: metrics)
    let openAPI = OpenAPIController(publicFolder: settings.server.publicFolder)
    let router = buildRouter(
        settings: settings,
        background: BackgroundController(photos: source, renderer: renderer, renders: renders, clock: clock,
                                         geohashPrecision: settings.photos.geohashPrecision, windowSeconds: settings.photos.windowSeconds,
                                         fallbackMaxAge: source.substitutesFallbacks ? settings.cache.fallbackMaxAgeSeconds : nil,
                                         staleWhileRevalidate: settings.cache.staleWhileRevalidateSeconds,
                                         defaults: settings.renderDefaults,
                                         upstreamDeadline: .milliseconds(Int64(settings.flickr.requestDeadlineSeconds * 1000)),
                                         clients: ClientAddress(trustedProxies: settings.server.trustedProxies), metrics: metrics),
        health: HealthController(stock: stock, cluster: coordinator),
        openAPI: openAPI,
        metrics: metrics,
        middleware: middleware
    )
    var app = Application(
        router: router,
        server: .backdrop(configuration: settings.server.http1Configuration,
                          idleTimeout: .seconds(Int64(settings.server.idleTimeoutSeconds)),
                          requestTimeout: .seconds(Int64(settings.server.requestHeadTimeoutSeconds)), metrics: metrics),
        configuration: .init(address: .hostname(settings.server.host, port: settings.server.port), serverName: "Backdrop",
                             backlog: settings.server.backlog,
                             availableConnectionsDelegate: MaximumAvailableConnections(maxConnections, logger: logger)),
        services: services,
        logger: logger
    )
    let log = logger
    app.beforeServerStarts {
        let library = try await stock.load()
        try await postgres?.database.start()
        await openAPI.load()
        for warning in settings.warnings { log.warning("\(warning)") }
        if maxConnections < settings.server.maxConnections {
            log.warning("server.maxConnections lowered to stay within the open-file limit",
                        metadata: ["maxConnections": "\(maxConnections)", "openFileLimit": "\(descriptors)"])
        }
        log.log(level: announcement.level, "\(announcement.text)", metadata: ["stockPhotos": "\(library.entries.count)"])
    }
    return app
}

/// The routes and middleware. Every path served is in ``Route``; the middleware sees every response.
func buildRouter(settings: Settings, background: BackgroundController, health: HealthController, openAPI: OpenAPIController,
                 metrics: BackdropMetrics,
                 middleware: [any MiddlewareProtocol<Request, Response, BackdropRequestContext>] = []) -> Router<BackdropRequestContext> {
    let router = Router(context: BackdropRequestContext.self, options: .autoGenerateHeadEndpoints)
    for outer in middleware { router.add(middleware: outer) }
    router.addMiddleware {
        CORSMiddleware(origins: settings.server.corsOrigins)
        RequestLogMiddleware(metrics: metrics, shed: ShedSummary())
        ErrorMiddleware()
        PathGuardMiddleware()
        MethodNotAllowedMiddleware()
        PublicFiles(folder: settings.server.publicFolder, logger: Logger(label: "PublicFiles"))
    }
    background.addRoutes(to: router)
    health.addRoutes(to: router)
    MetricsController(metrics: metrics).addRoutes(to: router)
    openAPI.addRoutes(to: router)
    return router
}
