import Foundation
import Logging

/// What every source in the photo line shares, handed to each whole: the clock, the log and the metrics, the photo
/// store (on the disk cache, when there is one), the operator's denylist (`photos.deny`), how old a stored photo may be
/// to stand in while its source fails (`cache.maxStaleHours`), how many cells' search results each source keeps in
/// memory (`photos.cellCacheEntries`), what is never shown (``KeptOut``, with `photos.keepOut`), how image hosts' names
/// are resolved (the system's resolver, its answers kept a minute by ``HostAddresses``; tests name their own, since no
/// name outside loopback resolves there), and the one queue of work after answers (``LateLooks``).
struct PhotoContext: Sendable {
    let clock: any WallClock
    let logger: Logger
    let metrics: BackdropMetrics
    let store: (any PhotoStore)?
    let deny: PhotoDenylist
    let maxStale: Duration
    let cellCacheEntries: Int
    let keepOut: KeptOut
    let resolve: @Sendable (String) async -> [String]
    let lateLooks: LateLooks

    init(
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics = BackdropMetrics(),
        store: (any PhotoStore)? = nil,
        deny: PhotoDenylist = PhotoDenylist(),
        maxStale: Duration = .seconds(24 * 3600),
        cellCacheEntries: Int = 10_000,
        keepOut: KeptOut = KeptOut(),
        resolve: @escaping @Sendable (String) async -> [String] = ImageHostPolicy.systemResolve,
        lateLooks: LateLooks = LateLooks()
    ) {
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.store = store
        self.deny = deny
        self.maxStale = maxStale
        self.cellCacheEntries = cellCacheEntries
        self.keepOut = keepOut
        self.resolve = resolve
        self.lateLooks = lateLooks
    }
}
