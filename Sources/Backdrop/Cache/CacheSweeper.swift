import ServiceLifecycle

/// Removes expired cache entries in the background, off the request path, until shutdown.
struct CacheSweeper: Service {
    let cache: DiskCache
    let policy: CachePolicy
    let interval: Duration

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: self.interval)  // a schedule, not synchronisation
                await self.cache.sweep(self.policy)
            }
        }
    }
}
