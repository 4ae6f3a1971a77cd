import AsyncHTTPClient
import Foundation
import Logging
import NIOCore

extension FlickrPhotoSource {
    /// The production source: Flickr's REST API and image hosts through `http`, with the configured limits.
    static func make(
        settings: Settings,
        http: HTTPClient,
        stock: StockPhotoSource,
        store: (any PhotoStore)?,
        coordinator: any ClusterCoordinator,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics
    ) -> FlickrPhotoSource {
        let total = TimeAmount.milliseconds(Int64(settings.flickr.totalTimeoutSeconds * 1000))
        return FlickrPhotoSource(
            settings: settings.flickr,
            searcher: FlickrRESTClient(
                http: http,
                endpoint: settings.flickr.endpoint,
                apiKey: settings.flickr.apiKey,
                timeout: total,
                allowedLicenses: settings.flickr.allowedLicenses
            ),
            downloader: ImageDownloader(
                http: http,
                policy: ImageHostPolicy(extraHosts: settings.flickr.extraImageHosts),
                maxBytes: settings.flickr.maxDownloadMB << 20,
                timeout: total
            ),
            stock: stock,
            store: store,
            maxStale: TimeInterval(settings.cache.maxStaleHours * 3600),
            deny: PhotoDenylist(settings.photos.deny),
            coordinator: coordinator,
            clock: clock,
            logger: logger,
            metrics: metrics
        )
    }
}
