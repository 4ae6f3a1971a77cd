import Foundation
import Logging

extension NearbyPhotoSource {
    /// What every nearby source shares from the settings: how stale a photo may be served (`cache.maxStaleHours`), the
    /// denylist (`photos.deny`) and how many cells' search results are kept (`flickr.cellCacheEntries`).
    struct Shared {
        let maxStale: Duration
        let deny: PhotoDenylist
        let cellCacheEntries: Int
    }

    /// A source as it runs: `search`, its images fetched by `downloader` (`downloadCacheMB` of them kept in memory), with
    /// the `shared` limits; `next` when it cannot serve.
    init(
        search: any NearbySearch,
        downloader: any ImageDownloading,
        downloadCacheMB: Int,
        shared: Shared,
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
            maxStale: shared.maxStale / .seconds(1),
            deny: shared.deny,
            coordinator: coordinator,
            cacheEntries: shared.cellCacheEntries,
            clock: clock,
            logger: logger,
            metrics: metrics
        )
    }
}
