import AsyncHTTPClient
import Foundation
import Logging
import NIOCore

extension NearbyPhotoSource {
    /// Wikimedia Commons as it runs: its API and `upload.wikimedia.org` through `http`, with the configured limits;
    /// `next` when it cannot serve.
    static func commons(
        settings commons: Settings.Commons,
        shared: Shared,
        http: HTTPClient,
        next: any PhotoSource,
        store: (any PhotoStore)?,
        coordinator: any ClusterCoordinator,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics
    ) -> NearbyPhotoSource {
        let total = TimeAmount(commons.totalTimeout)
        let downloader = ImageDownloader(
            http: http,
            policy: ImageHostPolicy(extraHosts: commons.extraImageHosts, domains: ["upload.wikimedia.org"], name: "Wikimedia"),
            maxBytes: commons.maxDownloadMB << 20,
            timeout: total,
            userAgent: commons.headerValue
        )
        let search = CommonsSearch(
            client: CommonsClient(http: http, endpoint: commons.endpoint, userAgent: commons.headerValue, timeout: total),
            radiusKm: commons.radiusKm,
            metrics: metrics
        )
        return NearbyPhotoSource(
            search: search,
            downloader: downloader,
            downloadCacheMB: commons.downloadCacheMB,
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
