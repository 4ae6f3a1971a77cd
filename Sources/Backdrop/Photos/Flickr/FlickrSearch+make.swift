import AsyncHTTPClient
import Foundation
import Logging
import NIOCore

extension NearbyPhotoSource {
    /// Flickr as it runs: its REST API and image hosts through `http`, with the configured limits; `next` when it
    /// cannot serve.
    static func flickr(
        settings: Settings,
        http: HTTPClient,
        next: any PhotoSource,
        store: (any PhotoStore)?,
        coordinator: any ClusterCoordinator,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics
    ) -> NearbyPhotoSource {
        let total = TimeAmount.milliseconds(Int64(settings.flickr.totalTimeoutSeconds * 1000))
        let search = FlickrSearch(
            settings: settings.flickr,
            searcher: FlickrRESTClient(
                http: http,
                endpoint: settings.flickr.endpoint,
                apiKey: settings.flickr.apiKey,
                timeout: total,
                allowedLicenses: settings.flickr.allowedLicenses
            ),
            windowSeconds: settings.photos.windowSeconds,
            clock: clock,
            metrics: metrics
        )
        let downloader = ImageDownloader(
            http: http,
            policy: ImageHostPolicy(extraHosts: settings.flickr.extraImageHosts),
            maxBytes: settings.flickr.maxDownloadMB << 20,
            timeout: total
        )
        return NearbyPhotoSource(
            search: search,
            downloader: downloader,
            downloadCacheMB: settings.flickr.downloadCacheMB,
            settings: settings,
            next: next,
            store: store,
            coordinator: coordinator,
            clock: clock,
            logger: logger,
            metrics: metrics
        )
    }
}
