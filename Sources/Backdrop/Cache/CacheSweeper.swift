import Logging
import ServiceLifecycle

/// The disk cache's background work, off the request path: at start it rebuilds the index from the folder and removes
/// expired entries (the server is already listening; until then a key missing from the index is looked up by its file
/// name), then sweeps every `interval` until shutdown.
struct CacheSweeper: Service {
    let cache: DiskCache
    let policy: CachePolicy
    let interval: Duration
    let logger: Logger

    func run() async throws {
        let entries = await self.cache.rebuildIndex()
        let expired = await self.cache.sweep(self.policy)
        self.logger.info("disk cache ready", metadata: ["folder": "\(self.cache.folder.path)", "entries": "\(entries - expired)"])
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: self.interval)  // a schedule, not synchronisation
                await self.cache.sweep(self.policy)
            }
        }
    }
}
