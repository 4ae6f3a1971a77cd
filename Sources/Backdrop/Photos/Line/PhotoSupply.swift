import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The photo line the settings describe, the services its sources need (an HTTP client each), and what start-up says
/// of it.
struct PhotoSupply {
    let line: PhotoLine
    let services: [any Service]
    let announcements: [(level: Logger.Level, text: String)]

    /// The sources `photos.sources` names, in order, each built by its own section (Flickr only with a key), the
    /// stock photos last; every source shares `context` and takes its budget from `replicas`.
    init(
        _ photos: Settings.Photos,
        flickr: Settings.Flickr,
        commons: Settings.Commons,
        stock: StockPhotoSource,
        replicas: Replicas,
        context: PhotoContext
    ) {
        var nearby = [NearbyPhotoSource]()
        var services = [any Service]()
        var announcements = [(level: Logger.Level, text: String)]()
        for name in photos.sources {
            switch name {
            case .stock:
                continue
            case .commons:
                let http = Self.client(connectTimeout: commons.connectTimeout)
                services.append(HTTPClientService(client: http))
                nearby.append(.commons(commons, http: http, replicas: replicas, context: context))
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
                nearby.append(.flickr(flickr, windowSeconds: photos.windowSeconds, http: http, replicas: replicas, context: context))
                announcements.append((.notice, "serving Flickr photos near each place"))
            }
        }
        if nearby.isEmpty { announcements.append((.warning, "serving stock photos only")) }
        if !nearby.isEmpty { services.append(context.lateLooks) }
        self.line = PhotoLine(nearby: nearby, stock: stock, deadline: photos.requestDeadline, metrics: context.metrics)
        self.services = services
        self.announcements = announcements
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
