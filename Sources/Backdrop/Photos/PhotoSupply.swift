import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The photo sources `photos.sources` names, in order, each standing in when the one before cannot serve (Flickr only
/// with a key; the stock photos last), the services they need, and what start-up says of them.
struct PhotoSupply {
    let source: any PhotoSource
    let services: [any Service]
    let announcements: [(level: Logger.Level, text: String)]

    /// The sources `photos` names, Flickr and Commons as their sections say; each shares `shared`, and a keyless
    /// source's budget is split among `expectedReplicas` while the database is away.
    static func make(
        photos: Settings.Photos,
        flickr: Settings.Flickr,
        commons: Settings.Commons,
        shared: NearbyPhotoSource.Shared,
        expectedReplicas: Int,
        stock: StockPhotoSource,
        store: (any PhotoStore)?,
        coordinator: any ClusterCoordinator,
        postgres: PostgresCoordinator?,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics
    ) -> PhotoSupply {
        var source: any PhotoSource = stock
        var services = [any Service]()
        var announcements = [(level: Logger.Level, text: String)]()
        for name in photos.sources.reversed() {
            switch name {
            case .stock:
                continue
            case .commons:
                let http = Self.client(connectTimeout: commons.connectTimeout)
                services.append(HTTPClientService(client: http))
                let budget: any ClusterCoordinator =
                    postgres.map {
                        PostgresCoordinator(
                            sharing: $0,
                            budget: "commons",
                            callsPerHour: commons.callsPerHour,
                            expectedReplicas: expectedReplicas
                        )
                    } ?? LocalCoordinator(callsPerHour: commons.callsPerHour, clock: clock, metrics: metrics)
                source = NearbyPhotoSource.commons(
                    settings: commons,
                    shared: shared,
                    http: http,
                    next: source,
                    store: store,
                    coordinator: budget,
                    clock: clock,
                    logger: logger,
                    metrics: metrics
                )
                announcements.append((.notice, "serving Wikimedia Commons photos near each place (no key needed)"))
                if !commons.hasOwnContact {
                    announcements.append((.warning, "commons.userAgent names only the project: put your own contact in it, as Wikimedia asks"))
                }
            case .flickr:
                guard !flickr.apiKey.isEmpty else {
                    announcements.append((.warning, "no Flickr API key configured: Flickr is not asked"))
                    continue
                }
                let http = Self.client(connectTimeout: flickr.connectTimeout)
                services.append(HTTPClientService(client: http))
                source = NearbyPhotoSource.flickr(
                    settings: flickr,
                    windowSeconds: photos.windowSeconds,
                    shared: shared,
                    http: http,
                    next: source,
                    store: store,
                    coordinator: coordinator,
                    clock: clock,
                    logger: logger,
                    metrics: metrics
                )
                announcements.append((.notice, "serving Flickr photos near each place"))
            }
        }
        if source is StockPhotoSource { announcements.append((.warning, "serving stock photos only")) }
        return PhotoSupply(source: source, services: services, announcements: announcements.reversed())
    }

    /// An HTTP client for one source: no redirects followed by itself (downloads check each hop), and no automatic
    /// spans (they would record full URLs, a key among them, and send `traceparent` upstream).
    private static func client(connectTimeout: Duration) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(connectTimeout))
        )
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: configuration)
    }
}
