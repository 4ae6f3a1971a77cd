import AsyncHTTPClient
import Foundation

extension NearbyPhotoSource {
    /// Wikimedia Commons as its section describes it: its API and `upload.wikimedia.org` through `http`, with the
    /// User-Agent Wikimedia asks for, its budget from `replicas` (one for every replica).
    static func commons(_ commons: Settings.Commons, http: HTTPClient, replicas: Replicas, context: PhotoContext) -> NearbyPhotoSource {
        let downloader = ImageDownloader(
            http: http,
            policy: ImageHostPolicy(
                extraHosts: commons.extraImageHosts,
                domains: ImageHostPolicy.wikimediaDomains,
                name: "Wikimedia",
                resolve: context.resolve
            ),
            maxBytes: commons.maxDownloadMB << 20,
            timeout: commons.totalTimeout,
            userAgent: commons.headerValue,
            pauses: MediaHostPauses(clock: context.clock),
            limiter: MediaLimiter(limit: commons.mediaConcurrency),
            rate: MediaByteRate(megabitsPerSecond: commons.mediaMbps),
            budget: replicas.coordinator(budget: "media/commons", source: "commons_media", callsPerHour: commons.mediaPerHour),
            shares: ClientShares(budget: "media/commons", callsPerHour: commons.mediaPerHour, clock: context.clock)
        )
        let search = CommonsSearch(
            // 16 MiB: an answer of a hundred files with one odd file of megabytes (a pasted credit) is still read, and
            // that file alone skipped.
            client: CommonsClient(
                get: JSONGet(http: http, userAgent: commons.headerValue, timeout: commons.totalTimeout, maxBytes: 16 << 20),
                endpoint: commons.endpoint,
                keepOut: context.keepOut
            ),
            radiusKm: commons.radiusKm,
            metrics: context.metrics
        )
        return NearbyPhotoSource(
            search: search,
            downloads: PhotoDownloads(downloader: downloader, memoryMB: commons.downloadCacheMB, context: context),
            thumbnails: downloader.capped(at: CandidateLooks.maxBytes, lane: .background),
            coordinator: replicas.coordinator(budget: "budget/commons", source: "commons", callsPerHour: commons.callsPerHour),
            callsPerHour: commons.callsPerHour,
            context: context
        )
    }
}
