import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The photo source the settings ask for (Flickr with stock photos as fallback, or stock photos alone when there is no
/// key), the services it needs, and what start-up says of it.
struct PhotoSupply {
    let source: any PhotoSource
    let services: [any Service]
    let announcement: (level: Logger.Level, text: String)

    static func make(
        settings: Settings,
        stock: StockPhotoSource,
        store: (any PhotoStore)?,
        coordinator: any ClusterCoordinator,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics
    ) -> PhotoSupply {
        guard !settings.flickr.apiKey.isEmpty else {
            return PhotoSupply(source: stock, services: [], announcement: (.warning, "no Flickr API key configured: serving stock photos only"))
        }
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .milliseconds(Int64(settings.flickr.connectTimeoutSeconds * 1000)))
        )
        // No automatic client spans: they would record the full URL, the API key in its query among it, and send
        // `traceparent` to Flickr. Backdrop's own spans say what a search or a download did.
        configuration.tracing.tracer = nil
        let http = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: configuration)
        let flickr = NearbyPhotoSource.flickr(
            settings: settings,
            http: http,
            next: stock,
            store: store,
            coordinator: coordinator,
            clock: clock,
            logger: logger,
            metrics: metrics
        )
        return PhotoSupply(
            source: flickr,
            services: [HTTPClientService(client: http)],
            announcement: (.notice, "serving Flickr photos near each place, stock photos as fallback")
        )
    }
}
