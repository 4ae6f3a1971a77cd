import Foundation
import NIOCore
import NIOEmbedded
import NIOPosix
import Synchronization
import Testing

@testable import Backdrop

#if canImport(Glibc)
import Glibc
#endif

/// What a cache hit's send shares with other hits: nothing the two event loops contend for (a replay table for each
/// loop, ``LoopReplays``; a cache file's descriptor duplicated without a lock, ``CachedFile``), and a payload that
/// starts on a page of its file, so that `sendfile` fills whole TCP segments (``CacheEntry/pageAligned(meta:key:alignment:)``).
@Suite("Hits sent without contention, from page-aligned files")
struct HitSendingTests {
    @Test func eachEventLoopHasATableOfItsOwn() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        let loops = Array(group.makeIterator())
        let replays = LoopReplays(limit: 8, clock: FixedClock(date: TestApp.epoch))
        let first = replays.table(for: loops[0])
        #expect(replays.table(for: loops[0]) === first, "a loop's connections share its table")
        #expect(replays.table(for: loops[1]) !== first, "another loop has its own")
        #expect(replays.tableCount == 2 && first.limit == 8)
        // What one loop learns, the others learn: each its own copy, read by its own loop alone.
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let now = TestApp.epoch
        let file = try #require(try Fixtures.openCacheFile(folder, bytes: 40_000, budget: OpenFileBudget(limit: 4)))
        let key = HitReplays.Key(target: "/background?cell=u09tv", accept: nil, origin: nil)
        first.keep(
            HitReplays.Replay(head: ["Content-Type": "image/png"], file: file, terms: Fixtures.replayTerms(until: now + 60)),
            for: key,
            at: now
        )
        let second = replays.table(for: loops[1])
        #expect(second.replay(key, at: now) != nil)
        let head = ByteBuffer(string: "GET /background?cell=u09tv HTTP/1.1\r\nHost: a\r\n\r\n")
        second.remember(head: head, as: key, at: now)
        #expect(first.replay(head: head, at: now)?.2 == key)
        // A loop whose first connection comes later starts with what the others hold, replays and heads alike, so the
        // first request it reads in those bytes is answered from them (it used to start empty, and decode it).
        let third = replays.table(for: loops[2])
        #expect(third.replay(head: head, at: now)?.2 == key, "the head, from the start")
        #expect(third.count == 1 && third.headCount == 1)
        #expect(third.replay(HitReplays.Key(target: "/other", accept: nil, origin: nil), at: now) == nil)
        try await group.shutdownGracefully()
    }

    /// What a table learns from others as it is made (``HitReplays/learn(from:at:)``): of two replays for one request,
    /// the one that serves longer (two loops may each hold another for a moment, while one of them learns a newer
    /// answer); no replay past its window; the heads that stand for what it holds.
    @Test func aNewTableLearnsTheReplaysThatServeLongest() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let now = TestApp.epoch
        let file = try #require(try Fixtures.openCacheFile(folder, bytes: 40_000, budget: OpenFileBudget(limit: 4)))
        func replay(until: Date) -> HitReplays.Replay {
            HitReplays.Replay(head: ["Content-Type": "image/png"], file: file, terms: Fixtures.replayTerms(until: until))
        }
        func key(_ cell: String) -> HitReplays.Key { HitReplays.Key(target: "/background?cell=\(cell)", accept: nil, origin: nil) }
        let (older, newer) = (HitReplays(limit: 8, clock: FixedClock(date: now)), HitReplays(limit: 8, clock: FixedClock(date: now)))
        older.keep(replay(until: now + 1), for: key("u09tu"), at: now)
        newer.keep(replay(until: now + 900), for: key("u09tu"), at: now)
        older.keep(replay(until: now - 1), for: key("u09ts"), at: now - 60)
        let head = ByteBuffer(string: "GET /background?cell=u09tu HTTP/1.1\r\nHost: a\r\n\r\n")
        older.remember(head: head, as: key("u09tu"), at: now)
        for sources in [[older, newer], [newer, older]] {
            let made = HitReplays(limit: 8, clock: FixedClock(date: now))
            made.learn(from: sources, at: now)
            #expect(made.replay(key("u09tu"), at: now + 60) != nil, "the replay that serves until now + 900")
            #expect(made.count == 1 && made.replay(key("u09ts"), at: now) == nil, "not the one past its window")
            #expect(made.replay(head: head, at: now)?.2 == key("u09tu"))
        }
    }

    @Test("A payload sent by sendfile starts on a page", arguments: [0, 1, 17, 200, 4047, 4048, 4049, 9000])
    func theMetaIsPaddedSoThePayloadStartsOnAPage(_ keyLength: Int) throws {
        let key = String(repeating: "k", count: keyLength)
        let meta = Array(#"{"photo":{"id":"p"}}"#.utf8)
        let padded = CacheEntry.pageAligned(meta: meta, key: key)
        let entry = CacheEntry(kind: .render, created: TestApp.epoch, window: 3, key: key, meta: padded, payload: ByteBuffer(bytes: [1, 2, 3]))
        #expect(entry.payloadRange.lowerBound % CacheEntry.pageSize == 0)
        #expect(padded.count - meta.count < CacheEntry.pageSize && padded.starts(with: meta))
        // The same JSON, and the same entry read back from its file.
        let read = try #require(CacheEntry.decode(ByteBuffer(bytes: entry.prefix() + [1, 2, 3])))
        #expect(read.meta == padded && Array(buffer: read.payload) == [1, 2, 3])
        #expect(try JSONSerialization.jsonObject(with: Data(read.meta)) as? [String: [String: String]] == ["photo": ["id": "p"]])
        #expect(CacheEntry.pageAligned(meta: padded, key: key) == padded, "already aligned: unchanged")
    }

    @Test func aLargeRendersPayloadStartsOnAPageOfItsFileAndASmallOnesMetaIsUnchanged() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let large = "/background?lat=42.6&lon=-5.6&width=320&height=568&blur=0.2"
        let small = "/background?lat=42.6&lon=-5.6&width=240&height=240&blur=0.5&format=jpeg"
        let bodies = Mutex<[[UInt8]]>([])
        for _ in 0..<2 {  // written, then read back after a restart
            var settings = TestApp.settings()
            settings.cache.folder = folder.path
            try await TestApp.run(settings) { client in
                for query in [large, small] {
                    let answer = try await TestApp.get(client, query)
                    #expect(answer.status == .ok)
                    bodies.withLock { $0.append(answer.body) }
                }
            }
        }
        let answers = bodies.withLock { $0 }
        #expect(answers.count == 4 && answers[0] == answers[2] && answers[1] == answers[3], "the same answers after a restart")
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
        let renders = try files.filter { $0.lastPathComponent.hasPrefix("render-") }.map { url in
            let bytes = [UInt8](try Data(contentsOf: url))
            let header = try #require(CacheEntry.header(bytes))
            return (start: CacheEntry.headerSize + header.key.utf8.count + header.metaLength, payload: header.payloadLength)
        }
        let largeRender = try #require(renders.first { $0.payload >= OpenFileBudget.minimumPayload })
        #expect(largeRender.start % CacheEntry.pageSize == 0, "the payload sent by sendfile starts on a page")
        let smallRender = try #require(renders.first { $0.payload < OpenFileBudget.minimumPayload })
        #expect(smallRender.start < CacheEntry.pageSize / 2, "a render written from memory is not padded")
    }

    @Test func aFileRevokedWhileItsDescriptorIsBeingDuplicatedClosesOnce() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let loop = EmbeddedEventLoop()
        for round in 0..<50 {
            let budget = OpenFileBudget(limit: 4)
            let file = try #require(try Fixtures.openCacheFile(folder, bytes: 40_000, budget: budget))
            #expect(budget.count == 1)
            // Eight sends and a revoke at once: each send gets a duplicate that reads the file, or nothing.
            let promises = (0..<9).map { _ in loop.makePromise(of: Void.self) }
            let futures = promises.map(\.futureResult)
            let regions = await withTaskGroup(of: FileRegion?.self) { group in
                for index in 0..<9 {
                    group.addTask {
                        if index == round % 9 {
                            file.revoke()
                            return nil
                        }
                        return file.region(closedWhen: futures[index])
                    }
                }
                return await group.reduce(into: [FileRegion]()) { if let region = $1 { $0.append(region) } }
            }
            for region in regions {
                var byte: UInt8 = 0
                let read = try region.fileHandle.withUnsafeFileDescriptor { pread($0, &byte, 1, 39_999) }
                #expect(read == 1 && byte == 7)
            }
            for promise in promises { promise.succeed() }  // the sends are written: their duplicates close
            #expect(regions.allSatisfy { !$0.fileHandle.isOpen })
            let late = loop.makePromise(of: Void.self)
            #expect(!file.isOpen && file.region(closedWhen: late.futureResult) == nil)
            late.succeed()
            file.revoke()  // again: nothing more
            #expect(budget.count == 0, "closed and released once")
        }
    }
}
