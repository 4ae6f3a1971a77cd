import Foundation
import NIOCore
import Tracing

/// Rendered backgrounds: recent ones in memory (with their cache file held open for `sendfile` when the budget allows),
/// all of them but the smallest on disk when a disk cache is configured (a render under one block,
/// ``Settings/Cache/smallestRenderOnDisk``, is cheaper to make again than the block and inode it would take). Concurrent
/// misses for one key render once. In memory at most ``maxEntries`` renders, whatever their size.
struct RenderCache: Sendable {
    struct Meta: Codable {
        let photo: SourcePhoto
    }

    let memory: MemoryLRU<RenderedImageKey, CachedRender>
    let disk: DiskCache?
    let clock: any WallClock
    let metrics: BackdropMetrics
    let headers: RenderHeaders

    /// Renders kept in memory at most: each holds its photo's attribution and headers besides its bytes.
    static let maxEntries = 32768
    /// What a render in memory costs besides its bytes (its photo's attribution, headers, the cache's own entry).
    static let overhead = 2048

    package init(memoryBudget: Int, disk: DiskCache?, clock: any WallClock, metrics: BackdropMetrics, headers: @escaping RenderHeaders) {
        self.memory = MemoryLRU(budget: memoryBudget, maxEntries: Self.maxEntries) { $0.body.readableBytes + Self.overhead }
        self.disk = disk
        self.clock = clock
        self.metrics = metrics
        self.headers = headers
    }

    /// The render for `key` if it is in memory (counted as a hit), else nil.
    package func cached(_ key: RenderedImageKey) async -> CachedRender? {
        guard let hit = await self.memory.cached(key) else { return nil }
        self.metrics.cache(.hit, kind: "render")
        return hit
    }

    /// The cached render for `key`, else the one `make` produces (kept in memory and on disk).
    package func render(_ key: RenderedImageKey, make: @escaping @Sendable () async throws -> ByteBuffer) async throws -> CachedRender {
        if let hit = await self.cached(key) { return hit }
        let (disk, clock, metrics, headers) = (self.disk, self.clock, self.metrics, self.headers)
        return try await self.memory.value(for: key) {
            let stored = await withRequestSpan("cache.disk.read") { span in
                guard let disk, let (entry, file) = await disk.read(key.diskKey, keepOpen: true),
                    (try? JSONDecoder().decode(Meta.self, from: Data(entry.meta)))?.photo.id == key.photo.id
                else {
                    span.attributes["backdrop.hit"] = false
                    return nil as (CacheEntry, CachedFile?)?
                }
                span.attributes["backdrop.hit"] = true
                return (entry, file)
            }
            if let (entry, file) = stored {
                metrics.cache(.hit, kind: "render")
                RequestTrace.note("backdrop.cache", "disk")
                return CachedRender(
                    body: entry.payload,
                    format: key.spec.format,
                    photo: key.photo,
                    place: key.place,
                    created: entry.created,
                    headers: headers
                )
                .with(file: file)
            }
            metrics.cache(.miss, kind: "render")
            // The encoder's buffer is the body sent, kept and written to disk: no copy, one checksum.
            let made = CachedRender(
                body: try await make(),
                format: key.spec.format,
                photo: key.photo,
                place: key.place,
                created: clock.now(),
                headers: headers
            )
            let size = made.body.readableBytes
            guard let disk, size >= Settings.Cache.smallestRenderOnDisk, let meta = try? JSONEncoder().encode(Meta(photo: key.photo)) else {
                return made
            }
            let file = await withRequestSpan("cache.disk.write") { span in
                span.attributes["backdrop.bytes"] = size
                let entry = CacheEntry(
                    kind: .render,
                    created: made.created,
                    window: key.window.index,
                    key: key.diskKey,
                    meta: size >= OpenFileBudget.minimumPayload ? CacheEntry.pageAligned(meta: [UInt8](meta), key: key.diskKey) : [UInt8](meta),
                    payload: made.body,
                    payloadCRC: made.crc
                )
                return await disk.write(entry, keepOpen: true)
            }
            return made.with(file: file)
        }
    }
}
