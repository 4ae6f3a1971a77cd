import AsyncHTTPClient
import Foundation

extension NearbyPhotoSource {
    /// Flickr as its section describes it: its REST API and image hosts through `http`, its budget from `replicas`
    /// (named by its key, so that replicas sharing the key share the budget).
    static func flickr(
        _ flickr: Settings.Flickr,
        windowSeconds: Int,
        http: HTTPClient,
        replicas: Replicas,
        context: PhotoContext
    ) -> NearbyPhotoSource {
        let search = FlickrSearch(
            settings: flickr,
            searcher: FlickrRESTClient(
                get: JSONGet(http: http, userAgent: "Backdrop/\(Backdrop.version)", timeout: flickr.totalTimeout),
                endpoint: flickr.endpoint,
                apiKey: flickr.apiKey,
                allowedLicenses: flickr.allowedLicenses
            ),
            windowSeconds: windowSeconds,
            clock: context.clock,
            metrics: context.metrics,
            keepOut: context.keepOut
        )
        let downloader = ImageDownloader(
            http: http,
            policy: ImageHostPolicy(extraHosts: flickr.extraImageHosts, resolve: context.resolve),
            maxBytes: flickr.maxDownloadMB << 20,
            timeout: flickr.totalTimeout,
            pauses: MediaHostPauses(clock: context.clock),
            // Flickr's image CDN asks no limit of its own; 8 in flight keeps a search's looks and a request's photo moving.
            limiter: MediaLimiter(limit: 8)
        )
        return NearbyPhotoSource(
            search: search,
            downloads: PhotoDownloads(downloader: downloader, memoryMB: flickr.downloadCacheMB, context: context),
            thumbnails: downloader.capped(at: CandidateLooks.maxBytes, lane: .background),
            coordinator: replicas.coordinator(budget: "flickr-api-key/\(flickr.apiKey)", source: "flickr", callsPerHour: flickr.callsPerHour),
            callsPerHour: flickr.callsPerHour,
            context: context
        )
    }
}
