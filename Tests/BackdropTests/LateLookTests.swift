import Foundation
import Logging
import NIOCore
import Synchronization
import Testing

@testable import Backdrop

/// Issue 58, part 1: a new place's first answer waits for the search, the photo and the render only; the looks of its
/// candidates come after it, count from the first window that starts a minute after they were published, and every
/// replica ranks every window alike, before and after they came.
@Suite("Looks after the first answer")
struct LateLookTests {
    /// A cluster in memory, as the database coordinates it: one search per cell (the first claim searches, later ones
    /// find what it published), the first results published win, and looks replace results only while they wait for them.
    final class MemoryCluster: ClusterCoordinator, CellSharing {
        let rows = Mutex([CellWindow: Data]())
        func sharing() -> any CellSharing { self }
        func takeCall() async -> Bool { true }
        func claim(_ key: CellWindow) async throws -> CellClaim { self.rows.withLock { $0[key] }.map { .found($0) } ?? .search }
        func publish(_ results: Data, for key: CellWindow) async -> Data {
            self.rows.withLock { rows in
                if rows[key] == nil { rows[key] = results }
                return rows[key] ?? results
            }
        }
        func read(_ key: CellWindow) async -> Data? { self.rows.withLock { $0[key] } }
        func publishLooks(_ results: Data, for key: CellWindow) async -> Data? {
            self.rows.withLock { rows in
                if let held = rows[key].flatMap(CellResults.read), held.looksPending { rows[key] = results }
                return rows[key]
            }
        }
        func publishFailure(for key: CellWindow, backoff: Double) async {}
        func takeShare(_ name: String, perHour: Int) async -> Bool? { nil }
        func returnShare(_ name: String) async {}
        func publishKeyRejected(retryAfter: Double) async {}
    }

    /// Commons' answer for every cell: the files `files` describe, parsed as a real answer is.
    final class FixedSearch: NearbySearch {
        let candidates: [CandidatePhoto]
        let count = Mutex(0)
        init(candidates: [CandidatePhoto]) { self.candidates = candidates }
        var origin: PhotoOrigin { .commons }
        var name: String { "Commons" }
        var resultsSeconds: Int { 86_400 }
        func search(_ cell: Geohash, shared: any CellSharing) async throws -> [CandidatePhoto] {
            self.count.withLock { $0 += 1 }
            return self.candidates
        }
        func isKeyRejection(_ error: any Error) -> Bool { false }
    }

    /// Thumbnails as the stand-in Commons serves them (``StandInCommons/lookJPEG(_:)``), counted.
    final class Thumbnails: ImageDownloading {
        let asked = Mutex([String]())
        func download(_ url: String) async throws -> [UInt8] {
            self.asked.withLock { $0.append(url) }
            let folder = try #require(url.split(separator: "/").first { $0.contains("~") })
            return Array(try StandInCommons.lookJPEG(String(folder)).readableBytesView)
        }
    }

    /// One replica of the source: its own memory, queue of late looks and downloads; the cluster and clock shared.
    static func replica(_ cluster: MemoryCluster, _ search: FixedSearch, _ thumbnails: Thumbnails, clock: any WallClock) -> NearbyPhotoSource {
        let context = PhotoContext(clock: clock, logger: Logger(label: "test"))
        return NearbyPhotoSource(
            search: search,
            downloads: PhotoDownloads(downloader: Fixtures.NoDownloads(), memoryMB: 1, context: context),
            thumbnails: thumbnails,
            coordinator: cluster,
            callsPerHour: 3600,
            context: context
        )
    }

    /// Two uploads of one photo by two uploaders, and three other scenes.
    static let files = [("photo", "A"), ("photo-copy", "B"), ("astronaut", "C"), ("own", "D"), ("own", "E")].enumerated().map { index, look in
        var file = StandInCommons.File(pageid: index + 1)
        (file.look, file.user) = (look.0, look.1)
        return file
    }

    @Test func theFirstAnswerWaitsForNoLookAndEveryReplicaRanksEveryWindowAlike() async throws {
        let cell = Geohash("u09tv")!
        // Ten seconds into a window: looks published now count from the next one.
        let first = TimeWindow(index: 1_900_000, seconds: 900)
        let clock = MovableClock(first.start.addingTimeInterval(10))
        let (cluster, search, thumbnails) = (MemoryCluster(), FixedSearch(candidates: try CommonsBackdrop.parse(Self.files)), Thumbnails())
        let (searcher, other, late) = (
            Self.replica(cluster, search, thumbnails, clock: clock), Self.replica(cluster, search, thumbnails, clock: clock),
            Self.replica(cluster, search, thumbnails, clock: clock)
        )
        func photo(_ replica: NearbyPhotoSource, _ window: TimeWindow) async throws -> String? {
            try await replica.photo(for: cell, in: window, variant: 0, shape: .landscape)?.id
        }
        // The first answer, and another replica's in the same window: one search, not one thumbnail.
        let shown = try await photo(searcher, first)
        #expect(shown != nil && search.count.withLock { $0 } == 1 && thumbnails.asked.withLock { $0.isEmpty })
        #expect(try await photo(other, first) == shown && search.count.withLock { $0 } == 1)
        let waiting = try #require(await cluster.read(searcher.resultsKey(cell, window: first)).flatMap(CellResults.read))
        #expect(waiting.looksPending && waiting.candidates.allSatisfy { $0.facts.look == nil })

        // The searcher's queue runs: the looks come, and count from the next window.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await searcher.context.lateLooks.run() }
            await searcher.context.lateLooks.settled()
            group.cancelAll()
        }
        let looked = try #require(await cluster.read(searcher.resultsKey(cell, window: first)).flatMap(CellResults.read))
        #expect(!looked.looksPending && looked.candidates.filter { $0.facts.look != nil }.count == 5)
        #expect(looked.candidates.allSatisfy { $0.facts.lookFrom == nil || $0.facts.lookFrom == first.index + 1 })
        #expect(thumbnails.asked.withLock { $0.count } == 5, "each thumbnail once")

        // A replica that ranks the first window only now, looks and all, shows what the others showed.
        #expect(try await photo(late, first) == shown, "a look that came does not change the window's photo")
        var seen = [String]()
        for index in 1...16 {
            clock.advance(900)
            let window = TimeWindow(index: first.index + Int64(index), seconds: 900)
            let photos = [try await photo(searcher, window), try await photo(other, window), try await photo(late, window)]
            #expect(Set(photos).count == 1, "window \(index): \(photos)")
            seen.append(photos[0] ?? "")
        }
        #expect(!(seen.contains("commons-1") && seen.contains("commons-2")) && Set(seen).count == 4, "\(seen)")
        #expect(search.count.withLock { $0 } == 1 && thumbnails.asked.withLock { $0.count } == 5)
    }

    /// A search takes the looks already known at once, from the cell's previous results (a photo's look does not change)
    /// or from the memo, counting in every window; only the others are left to come.
    @Test func aSearchTakesTheLooksAlreadyKnownAtOnce() async throws {
        let candidates = try CommonsBackdrop.parse(Self.files)
        var previous = Array(candidates.prefix(2))
        previous[0].facts.look = LookHash(bits: 1)
        previous[0].facts.interest = CropInterest(portrait: 0.5, square: 0.7, landscape: 0.9)
        previous[0].facts.lookFrom = 1_900_001
        let thumbnails = Thumbnails()
        // Four thumbnails made in this process beside the whole suite took over 30 s once (the suite's first three minutes
        // hold both threads): the bounds are not tested here.
        let looks = CandidateLooks(downloader: thumbnails, idle: .seconds(60), budget: .seconds(60))
        let (known, pending) = await looks.known(candidates, previous: previous)
        #expect(known[0].facts.look == LookHash(bits: 1) && known[0].facts.interest?.square == 0.7)
        #expect(known[0].facts.lookFrom == nil && pending)
        #expect(known.dropFirst().allSatisfy { $0.facts.look == nil } && thumbnails.asked.withLock { $0.isEmpty })
        let fetched = await looks.missing(known)
        #expect(fetched.map(\.0).sorted() == [1, 2, 3, 4] && thumbnails.asked.withLock { $0.count } == 4)
        var all = known
        for (index, reading) in fetched { (all[index].facts.look, all[index].facts.interest) = (reading.look, reading.interest) }
        let (again, left) = await looks.known(candidates, previous: [])
        #expect(!left || again.filter { $0.facts.look != nil }.count == 4, "the memo holds what was fetched")
        #expect(await looks.known(all, previous: []).pending == false)
    }
}
