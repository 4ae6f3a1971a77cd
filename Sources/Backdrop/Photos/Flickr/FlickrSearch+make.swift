import AsyncHTTPClient
import Foundation
import Logging
import NIOCore

extension NearbyPhotoSource {
    /// Flickr as it runs: its REST API and image hosts through `http`, with the configured limits; `next` when it
    /// cannot serve.
    static func flickr(
        settings flickr: Settings.Flickr,
        windowSeconds: Int,
        shared: Shared,
        http: HTTPClient,
        next: any PhotoSource,
        store: (any PhotoStore)?,
        coordinator: any ClusterCoordinator,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics
    ) -> NearbyPhotoSource {
        let total = TimeAmount(flickr.totalTimeout)
        let search = FlickrSearch(
            settings: flickr,
            searcher: FlickrRESTClient(
                http: http,
                endpoint: flickr.endpoint,
                apiKey: flickr.apiKey,
                timeout: total,
                allowedLicenses: flickr.allowedLicenses
            ),
            windowSeconds: windowSeconds,
            clock: clock,
            metrics: metrics
        )
        let downloader = ImageDownloader(
            http: http,
            policy: ImageHostPolicy(extraHosts: flickr.extraImageHosts),
            maxBytes: flickr.maxDownloadMB << 20,
            timeout: total
        )
        return NearbyPhotoSource(
            search: search,
            downloader: downloader,
            downloadCacheMB: flickr.downloadCacheMB,
            shared: shared,
            next: next,
            store: store,
            coordinator: coordinator,
            clock: clock,
            logger: logger,
            metrics: metrics
        )
    }
}
