import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing

@testable import Backdrop

#if canImport(Glibc)
import Glibc
#endif

@Suite("Disk cache, serve-stale, HTTP caching and metrics")
struct CacheTests {
    static func entry(
        _ key: String,
        kind: CacheEntry.Kind = .render,
        bytes: Int = 1000,
        created: Date = TestApp.epoch,
        window: Int64 = 7
    ) -> CacheEntry {
        CacheEntry(
            kind: kind,
            created: created,
            window: window,
            key: key,
            meta: Array("{\"a\":1}".utf8),
            payload: ByteBuffer(bytes: (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ key.count) })
        )
    }

    static func cache(
        _ folder: URL,
        budget: Int = 1 << 30,
        maxFiles: Int = .max,
        clock: any WallClock = FixedClock(date: TestApp.epoch),
        metrics: BackdropMetrics = BackdropMetrics(),
        logger: Logger = Logger(label: "test")
    ) -> DiskCache {
        DiskCache(folder: folder, budgetBytes: budget, maxFiles: maxFiles, clock: clock, logger: logger, metrics: metrics)
    }

    /// The names of the files under `folder`, in its subfolders too.
    static func files(_ folder: URL) -> [String] {
        self.fileURLs(folder).map(\.lastPathComponent).sorted()
    }

    static func fileURLs(_ folder: URL) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        return (enumerator?.allObjects as? [URL] ?? []).filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
    }

    /// Where the cache keeps the entry for `key`.
    static func file(_ folder: URL, _ key: String, kind: CacheEntry.Kind = .render) -> URL {
        let name = CacheLayout.fileName(for: key, kind: kind)
        return folder.appendingPathComponent(CacheLayout.subfolder(of: name)).appendingPathComponent(name)
    }

    /// The disk space the files under `folder` take (allocated blocks, as `du` counts them).
    static func allocatedBytes(_ folder: URL) -> Int {
        self.fileURLs(folder).reduce(0) { total, url in
            var info = stat()
            return total + (stat(url.path, &info) == 0 ? Int(info.st_blocks) * 512 : 0)
        }
    }

    // MARK: - entries on disk

    @Test func entriesRoundTripAndDamageIsDetected() throws {
        let original = Self.entry("render/ezs42/1/stock-001/640x1136/light/50/png", bytes: 5000)
        let bytes = original.file()
        let decoded = try #require(CacheEntry.decode(ByteBuffer(bytes: bytes)))
        #expect(decoded.key == original.key && decoded.payload == original.payload && decoded.meta == original.meta)
        #expect(decoded.window == 7 && decoded.kind == .render && decoded.created == original.created)
        for index in [0, 30, 48, 60, bytes.count / 2, bytes.count - 1] {
            var damaged = bytes
            damaged[index] ^= 0x01
            #expect(CacheEntry.decode(ByteBuffer(bytes: damaged)) == nil, "flipped byte \(index)")
        }
        #expect(CacheEntry.decode(ByteBuffer(bytes: bytes.dropLast())) == nil)
        #expect(CacheEntry.decode(ByteBuffer(bytes: bytes + [0])) == nil)
        #expect(CacheEntry.decode(ByteBuffer()) == nil)
        // A writer that has the payload's CRC (a render's ETag) writes the same file without computing it again.
        let given = CacheEntry(
            kind: original.kind,
            created: original.created,
            window: original.window,
            key: original.key,
            meta: original.meta,
            payload: original.payload,
            payloadCRC: CRC32.checksum(original.payload)
        )
        #expect(given.prefix() == original.prefix())
    }

    @Test("CRC-32 of two strings from each one's", arguments: [0, 1, 7, 64, 1000, 65_537])
    func crcsCombine(_ length: Int) {
        var generator = SeededGenerator(seed: 43)  // fixed, so that a failure replays
        let first = (0..<333).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let second = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(CRC32.combine(CRC32.checksum(first), CRC32.checksum(second), secondLength: length) == CRC32.checksum(first + second))
        #expect(CRC32.combine(0, CRC32.checksum(second), secondLength: length) == CRC32.checksum(second))
    }

    @Test func evictionsAndBytesAreCounted() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let metrics = BackdropMetrics()
        let cache = Self.cache(folder, budget: 3 * CacheFileIO.block, metrics: metrics)
        await cache.rebuildIndex()
        for key in ["a", "b", "c", "d", "e"] { await cache.write(Self.entry(key)) }
        await cache.write(Self.entry("p", kind: .photo))
        #expect(MetricsText.metric(metrics, #"backdrop_cache_evictions_total{kind="render"}"#) == 3)
        #expect(MetricsText.metric(metrics, #"backdrop_cache_bytes{kind="render"}"#) == Double(2 * CacheFileIO.block))
        #expect(MetricsText.metric(metrics, #"backdrop_cache_bytes{kind="photo"}"#) == Double(CacheFileIO.block))
        #expect(MetricsText.metric(metrics, #"backdrop_cache_bytes{kind="source"}"#) == 0)
    }

    @Test func leastRecentlyUsedEntriesGoFirstWithinTheBudget() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = CacheFileIO.block  // each entry takes one block on disk, and is charged that
        #expect(Self.entry("a").file().count < size)
        let cache = Self.cache(folder, budget: size * 3)
        await cache.rebuildIndex()
        for key in ["a", "b", "c"] { await cache.write(Self.entry(key)) }
        #expect(await cache.read("a") != nil)  // a is now more recent than b
        await cache.write(Self.entry("d"))
        #expect(await cache.read("b") == nil)
        for key in ["a", "c", "d"] { #expect(await cache.read(key) != nil, "\(key)") }
        #expect(await cache.totalBytes == size * 3)
        #expect(Self.files(folder).count == 3)
        await cache.write(Self.entry("huge", bytes: size * 4))  // larger than the whole budget: not kept
        #expect(await cache.entryCount == 3)
    }

    @Test func theBudgetCountsBlocksAndTheFilesAreCapped() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 100 entries of 100 bytes: by length they would fit 10 blocks three times over; by blocks, 10 fit.
        let byBlocks = Self.cache(folder, budget: 10 * CacheFileIO.block)
        await byBlocks.rebuildIndex()
        for index in 0..<100 { await byBlocks.write(Self.entry("tiny-\(index)", bytes: 100)) }
        #expect(await byBlocks.entryCount == 10)
        #expect(Self.allocatedBytes(folder) <= 10 * CacheFileIO.block)
        #expect(await byBlocks.read("tiny-99") != nil, "the most recent ones stay")
        #expect(await byBlocks.read("tiny-89") == nil)
        // Files in subfolders, none at the top.
        #expect(Self.fileURLs(folder).allSatisfy { $0.deletingLastPathComponent().lastPathComponent.count == 2 })
        let capped = Self.cache(try Fixtures.temporaryFolder(), maxFiles: 7)
        await capped.rebuildIndex()
        for index in 0..<20 { await capped.write(Self.entry("file-\(index)", bytes: 100)) }
        #expect(await capped.entryCount == 7)
        try? FileManager.default.removeItem(at: await capped.folder)
    }

    @Test func theRenderCacheKeepsTinyRendersInMemoryOnly() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.withApp(Self.settings(cacheFolder: folder)) { client in
            let tiny = try await TestApp.get(client, "/background?lat=3&lon=3&width=4&height=4&format=webp")
            #expect(tiny.status == .ok && tiny.body.count < Settings.Cache.smallestRenderOnDisk)
            let large = try await TestApp.get(client, "/background?lat=3&lon=3&width=160&height=160")
            #expect(large.status == .ok && large.body.count >= Settings.Cache.smallestRenderOnDisk)
        }
        #expect(Self.files(folder).filter { $0.hasPrefix("render-") }.count == 1, "only the large render is on disk")
    }

    @Test func aRestartKeepsEntriesAndRemovesLeftoverTemporaryFiles() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = Self.cache(folder)
        await first.rebuildIndex()
        for index in 0..<5 { await first.write(Self.entry("key-\(index)")) }
        let subfolder = Self.file(folder, "key-3").deletingLastPathComponent()
        try Data("half a file".utf8).write(to: subfolder.appendingPathComponent(".tmp-render-1234.bdc-99"))
        try Data("flat layout".utf8).write(to: folder.appendingPathComponent("render-1234.bdc"))
        try Data("not ours".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        let second = Self.cache(folder)
        #expect(await second.rebuildIndex() == 5)
        #expect(await second.read("key-3")?.payload == Self.entry("key-3").payload)
        #expect(!Self.files(folder).contains { $0.hasPrefix(".tmp-") })
        #expect(!Self.files(folder).contains("render-1234.bdc"), "an entry of the former flat layout is removed")
        #expect(Self.files(folder).contains("notes.txt"))
    }

    @Test func tenThousandEntriesAreIndexedAtStart() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = Self.cache(folder)
        await writer.rebuildIndex()
        for index in 0..<10_000 { await writer.write(Self.entry("render/cell/\(index)", bytes: 16)) }
        let reader = Self.cache(folder)
        #expect(await reader.rebuildIndex() == 10_000)
        #expect(await reader.read("render/cell/9999") != nil)
    }

    @Test func aCorruptOrTruncatedEntryIsDeletedNotServed() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = Self.cache(folder)
        await cache.rebuildIndex()
        await cache.write(Self.entry("flipped"))
        await cache.write(Self.entry("cut"))
        let flipped = Self.file(folder, "flipped")
        var bytes = [UInt8](try Data(contentsOf: flipped))
        bytes[bytes.count - 10] ^= 0xFF
        try Data(bytes).write(to: flipped)
        #expect(await cache.read("flipped") == nil)
        #expect(!FileManager.default.fileExists(atPath: flipped.path))
        // A truncated file (as a crash mid-write without the rename would leave) is dropped when the index is rebuilt.
        let cut = Self.file(folder, "cut")
        let whole = try Data(contentsOf: cut)
        try whole.prefix(whole.count / 2).write(to: cut)
        #expect(await Self.cache(folder).rebuildIndex() == 0)
        #expect(!FileManager.default.fileExists(atPath: cut.path))
    }

    @Test func sweepingRemovesWhatThePolicySaysIsDone() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let now = TestApp.epoch
        let window = TimeWindow(containing: now, seconds: 900).index
        let cache = Self.cache(folder, clock: FixedClock(date: now))
        await cache.rebuildIndex()
        await cache.write(Self.entry("render-now", window: window))
        await cache.write(Self.entry("render-before", window: window - 1))
        await cache.write(Self.entry("photo-old", kind: .photo, created: now.addingTimeInterval(-25 * 3600), window: window - 100))
        await cache.write(Self.entry("photo-recent", kind: .photo, created: now.addingTimeInterval(-3600), window: window - 4))
        let removed = await cache.sweep(CachePolicy(windowSeconds: 900, renderLifetime: 900, maxStale: 24 * 3600))
        #expect(removed == 2)
        #expect(await cache.read("render-now") != nil)
        #expect(await cache.contains("photo-recent"))
        #expect(await !cache.contains("render-before"))
        #expect(await !cache.contains("photo-old"))
        // cache.expirySeconds: a render of the current window older than the lifetime goes too.
        let start = TimeWindow(containing: now, seconds: 900).start
        let aged = Self.cache(folder, clock: FixedClock(date: start.addingTimeInterval(800)))
        await aged.rebuildIndex()
        await aged.write(Self.entry("render-early", created: start.addingTimeInterval(10), window: window))
        await aged.write(Self.entry("render-late", created: start.addingTimeInterval(790), window: window))
        #expect(await aged.sweep(CachePolicy(windowSeconds: 900, renderLifetime: 300, maxStale: 24 * 3600)) >= 1)
        #expect(await !aged.contains("render-early"), "790 s old against a lifetime of 300 s")
        #expect(await aged.contains("render-late"))
    }

    // MARK: - through HTTP

    static func settings(cacheFolder: URL) -> Settings {
        var settings = TestApp.settings()
        settings.cache.folder = cacheFolder.path
        return settings
    }

    static func withApp(
        _ settings: Settings,
        clock: any WallClock = FixedClock(date: TestApp.epoch),
        metrics: BackdropMetrics = .init(),
        logger: Logger? = nil,
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        try await TestApp.run(settings, clock: clock, logger: logger, metrics: metrics, body)
    }

    @Test func rendersAreKeptOnDiskAndServedAfterARestart() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let query = "/background?lat=42.6&lon=-5.6&width=160&height=240&blur=0.4"
        let first = BackdropMetrics()
        let body = Mutex<[UInt8]>([])
        try await Self.withApp(Self.settings(cacheFolder: folder), metrics: first) { client in
            let answer = try await TestApp.get(client, query)
            #expect(answer.status == .ok)
            body.withLock { $0 = answer.body }
        }
        #expect(MetricsText.metric(first, #"backdrop_cache_misses_total{kind="render"}"#) == 1)
        #expect(Self.files(folder).contains { $0.hasPrefix("render-") })
        let second = BackdropMetrics()
        try await Self.withApp(Self.settings(cacheFolder: folder), metrics: second) { client in
            let answer = try await TestApp.get(client, query)
            #expect(answer.status == .ok && answer.body == body.withLock { $0 })
        }
        #expect(MetricsText.metric(second, #"backdrop_cache_hits_total{kind="render"}"#) == 1)
        #expect(MetricsText.metric(second, #"backdrop_cache_misses_total{kind="render"}"#) == nil)
    }

    @Test func aCorruptRenderOnDiskIsRebuilt() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let query = "/background?lat=1&lon=1&width=160&height=160"
        try await Self.withApp(Self.settings(cacheFolder: folder)) { client in
            let answer = try await TestApp.get(client, query)
            #expect(answer.status == .ok)
        }
        let url = try #require(Self.fileURLs(folder).first { $0.lastPathComponent.hasPrefix("render-") })
        var bytes = [UInt8](try Data(contentsOf: url))
        for index in (bytes.count - 200)..<(bytes.count - 100) { bytes[index] = 0 }
        try Data(bytes).write(to: url)
        try await Self.withApp(Self.settings(cacheFolder: folder)) { client in
            let answer = try await TestApp.get(client, query)
            #expect(answer.status == .ok)
            #expect(try PNGDecoder.decode(answer.body).width == 160)
        }
        #expect(CacheEntry.decode(ByteBuffer(bytes: try Data(contentsOf: url))) != nil, "rewritten whole")
    }

    @Test func anUnwritableFolderStillServesAndRecovers() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A regular file where the cache folder should be: nothing can be created under it (even as root).
        let blocker = folder.appendingPathComponent("blocked")
        try Data("a file".utf8).write(to: blocker)
        let cacheFolder = blocker.appendingPathComponent("cache")
        let metrics = BackdropMetrics()
        let records = LogRecords()
        let logger = records.logger
        var settings = Self.settings(cacheFolder: cacheFolder)
        settings.server.logLevel = .info
        try await Self.withApp(settings, metrics: metrics, logger: logger) { client in
            for blur in ["0.1", "0.2", "0.3"] {
                let answer = try await TestApp.get(client, "/background?lat=5&lon=5&width=160&height=160&blur=\(blur)")
                #expect(answer.status == .ok)
            }
            #expect((MetricsText.metric(metrics, #"backdrop_cache_errors_total{operation="write"}"#) ?? 0) >= 3)
            #expect(records.all.filter { $0.message.contains("disk cache unavailable") }.count == 1, "warned once, not per request")
            // The disk comes back: the next write succeeds.
            try FileManager.default.removeItem(at: blocker)
            let answer = try await TestApp.get(client, "/background?lat=5&lon=5&width=160&height=160&blur=0.4")
            #expect(answer.status == .ok)
            #expect(Self.files(cacheFolder).contains { $0.hasPrefix("render-") })
            #expect(records.all.contains { $0.message.contains("writable again") })
        }
    }

    /// Descriptors this process holds on files under `folder` that have been deleted.
    static func deletedButOpen(under folder: URL) -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)") else { return false }
            return target.hasPrefix(folder.path) && target.hasSuffix(" (deleted)")
        }.count
    }

    @Test func theBudgetBoundsTheDiskEvenForFilesHeldOpenAndADeletedFolderRecovers() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var settings = Self.settings(cacheFolder: folder)
        settings.cache.maxMB = 1  // about one full-size render: each new one evicts the last
        try await Self.withApp(settings) { client in
            for blur in 1...6 {
                let answer = try await TestApp.get(client, "/background?lat=7&lon=7&blur=0.\(blur)")
                #expect(answer.status == .ok)
            }
            // Every render is still in the memory tier, but the evicted ones' files were released: no deleted file is
            // kept open, so the disk holds no more than the budget.
            #expect(Self.deletedButOpen(under: folder) == 0)
            #expect(Self.files(folder).filter { $0.hasPrefix("render-") }.count < 6, "the budget was enforced: renders were evicted")
            #expect(Self.allocatedBytes(folder) <= 1 << 20, "the folder's blocks stay within the budget")
            // The folder is deleted under the running service: the next write releases what it held and recreates it.
            try FileManager.default.removeItem(at: folder)
            let answer = try await TestApp.get(client, "/background?lat=7&lon=7&blur=0.9")
            #expect(answer.status == .ok)
            #expect(Self.files(folder).contains { $0.hasPrefix("render-") }, "writable again without a restart")
            #expect(Self.deletedButOpen(under: folder) == 0)
        }
    }

    @Test func oneHundredConcurrentIdenticalRequestsRenderOnce() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let metrics = BackdropMetrics()
        try await Self.withApp(Self.settings(cacheFolder: folder), metrics: metrics) { client in
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<100 { group.addTask { try await TestApp.get(client, "/background?lat=3&lon=3&width=200&height=300").status } }
                for try await status in group { #expect(status == .ok) }
            }
        }
        #expect(MetricsText.metric(metrics, #"backdrop_cache_misses_total{kind="render"}"#) == 1)
    }

    @Test func etagsAndConditionalRequests() async throws {
        try await Self.withApp(TestApp.settings()) { client in
            let uri = "/background?lat=7&lon=7&width=50&height=50"
            let first = try await TestApp.get(client, uri)
            let etag = try #require(first.headers[.eTag])
            let lastModified = try #require(first.headers[.lastModified])
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
            #expect(HTTPDate.parse(lastModified) != nil)
            for method in [HTTPRequest.Method.get, .head] {
                for header: HTTPFields in [
                    [.ifNoneMatch: etag], [.ifNoneMatch: "W/\(etag)"], [.ifNoneMatch: "\"other\", \(etag)"],
                    [.ifModifiedSince: lastModified],
                ] {
                    try await client.execute(uri: uri, method: method, headers: header) { response in
                        #expect(response.status == .notModified, "\(method) \(header)")
                        #expect(response.body.readableBytes == 0)
                        #expect(response.headers[.eTag] == etag && response.headers[.cacheControl] != nil)
                    }
                }
                for header: HTTPFields in [
                    [.ifNoneMatch: "\"stale-tag\""], [.ifModifiedSince: "Sat, 01 Jan 2000 00:00:00 GMT"],
                    [.ifNoneMatch: "\"stale-tag\"", .ifModifiedSince: lastModified],
                ] {
                    try await client.execute(uri: uri, method: method, headers: header) { response in
                        #expect(response.status == .ok, "\(method) \(header)")
                    }
                }
            }
            // Another blur is another representation, with another tag.
            let other = try await TestApp.get(client, "/background?lat=7&lon=7&width=50&height=50&blur=0")
            #expect(other.headers[.eTag] != etag)
        }
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
    }

    @Test func metricsParseAsPrometheusTextAndCount() async throws {
        let metrics = BackdropMetrics()
        try await Self.withApp(TestApp.settings(), metrics: metrics) { client in
            for _ in 0..<3 { _ = try await TestApp.get(client, "/background?lat=9&lon=9&width=20&height=20") }
            _ = try await TestApp.get(client, "/background?lat=99&lon=9")
            _ = try await TestApp.get(client, "/nope/\(UUID().uuidString)")
            let answer = try await TestApp.get(client, "/metrics")
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = String(decoding: answer.body, as: UTF8.self)
            let sample = try Regex(#"^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (-?[0-9.eE+-]+|NaN|[+-]Inf)$"#)
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                #expect(line.wholeMatch(of: sample) != nil, "\(line)")
            }
            #expect(text.contains(#"backdrop_requests_total{route="/background",status="200"} 3"#))
            #expect(text.contains(#"backdrop_requests_total{route="/background",status="400"} 1"#))
            #expect(text.contains(#"backdrop_requests_total{route="other",status="404"} 1"#))
            #expect(text.contains(#"backdrop_cache_hits_total{kind="render"} 2"#))
            #expect(text.contains(#"backdrop_request_duration_seconds_bucket{route="/background""#))
        }
    }
}

extension CacheEntry {
    /// The whole file as the disk cache writes it: the prefix, then the payload.
    func file() -> [UInt8] { self.prefix() + Array(buffer: self.payload) }
}
