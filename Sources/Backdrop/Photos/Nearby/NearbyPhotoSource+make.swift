import Foundation
import Logging

extension NearbyPhotoSource {
    /// A source as it runs: `search`, its images fetched by `downloader` (`downloadCacheMB` of them kept in memory), with
    /// the service's stale limit, denylist and cell cache; `next` when it cannot serve.
    init(
        search: any NearbySearch,
        downloader: any ImageDownloading,
        downloadCacheMB: Int,
        settings: Settings,
        next: any PhotoSource,
        store: (any PhotoStore)?,
        coordinator: any ClusterCoordinator,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics
    ) {
        self.init(
            search: search,
            downloads: PhotoDownloads(downloader: downloader, store: store, memoryMB: downloadCacheMB, metrics: metrics),
            next: next,
            store: store,
            maxStale: TimeInterval(settings.cache.maxStaleHours * 3600),
            deny: PhotoDenylist(settings.photos.deny),
            coordinator: coordinator,
            cacheEntries: settings.flickr.cellCacheEntries,
            clock: clock,
            logger: logger,
            metrics: metrics
        )
    }
}
