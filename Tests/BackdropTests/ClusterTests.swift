import Foundation
import Logging
import Synchronization
import Testing

@testable import Backdrop

/// The Flickr source's side of sharing: what it does with each answer of a coordinator (scripted here; the real
/// PostgreSQL coordinator is run by Tests/cluster/cluster_checks.py with three replicas).
@Suite("The Flickr source with other replicas")
struct ClusterTests {
    /// A coordinator whose answers the test sets, recording what the source told it.
    final class ScriptedCoordinator: ClusterCoordinator, CellSharing {
        struct Record {
            var claims = 0
            /// The ids of each list of results published.
            var published: [[String]] = []
            var failures = 0
            var keyRejections = 0
        }

        let claim: CellClaim
        let agreed: [CandidatePhoto]?
        let grantsCalls: Bool
        let record = Mutex(Record())

        init(claim: CellClaim, agreed: [CandidatePhoto]? = nil, grantsCalls: Bool = true) {
            self.claim = claim
            self.agreed = agreed
            self.grantsCalls = grantsCalls
        }

        func sharing() -> any CellSharing { self }

        func takeCall() async -> Bool { self.grantsCalls }

        func claim(_ key: CellWindow) async throws -> CellClaim {
            self.record.withLock { $0.claims += 1 }
            return self.claim
        }

        func publish(_ results: Data, for key: CellWindow) async -> Data {
            let ids = CellResults.read(results)?.candidates.map(\.photo.id) ?? []
            self.record.withLock { $0.published.append(ids) }
            return self.agreed.map(Fixtures.shared) ?? results
        }

        func read(_ key: CellWindow) async -> Data? { nil }

        func publishLooks(_ results: Data, for key: CellWindow) async -> Data? { nil }
        func takeShare(_ name: String, perHour: Int) async -> Bool? { nil }
        func returnShare(_ name: String) async {}

        func publishFailure(for key: CellWindow, backoff: Double) async {
            self.record.withLock { $0.failures += 1 }
        }

        func publishKeyRejected(retryAfter: Double) async {
            self.record.withLock { $0.keyRejections += 1 }
        }
    }

    /// Answers every search with `photos`, or fails with `error`; counts the searches.
    final class CountingSearcher: FlickrSearching {
        let photos: [FlickrPhoto]
        let error: FlickrError?
        let count = Mutex(0)

        init(photos: [FlickrPhoto], error: FlickrError? = nil) {
            self.photos = photos
            self.error = error
        }

        func search(_ query: FlickrSearchQuery) async throws -> FlickrSearchResponse {
            self.count.withLock { $0 += 1 }
            if let error { throw error }
            return FlickrSearchResponse(total: self.photos.count, photos: self.photos)
        }
    }

    static let cell = Geohash("u09tv")!
    static let window = TimeWindow(index: 1_900_000, seconds: 900)

    static func photo(_ id: String) -> FlickrPhoto {
        FlickrPhoto(
            id: id,
            owner: "1@N00",
            ownerName: "Someone",
            pathAlias: nil,
            title: "Photo \(id)",
            license: FlickrLicense.named(4)!,
            sizes: [
                PhotoSize(
                    label: "l",
                    url: "https://live.staticflickr.com/\(id)_l.jpg",
                    width: 1024,
                    height: 768
                )
            ]
        )
    }

    static func candidates(_ photos: [FlickrPhoto]) -> [CandidatePhoto] { photos.map { CandidatePhoto($0, near: Self.cell) } }

    static func source(
        _ coordinator: some ClusterCoordinator,
        _ searcher: CountingSearcher,
        clock: any WallClock = FixedClock(date: Self.window.start)
    ) async throws -> PhotoLine {
        let stock = StockPhotoSource(folder: Fixtures.stockFolder)
        _ = try await stock.load()
        let context = PhotoContext(clock: clock, logger: Logger(label: "test"))
        let flickr = NearbyPhotoSource(
            search: FlickrSearch(settings: Settings.Flickr(), searcher: searcher, windowSeconds: 900, clock: clock, metrics: context.metrics),
            downloads: PhotoDownloads(downloader: Fixtures.NoDownloads(), memoryMB: 1, context: context),
            coordinator: coordinator,
            callsPerHour: 3600,
            context: context
        )
        return PhotoLine(nearby: [flickr], stock: stock, deadline: TestApp.patientDeadline, metrics: context.metrics)
    }

    @Test func anotherReplicasFindingIsServedWithoutASearch() async throws {
        let results = Self.candidates([Self.photo("111"), Self.photo("222")])
        let theirs = CellChoice.ranking(results, cell: Self.cell, window: Self.window, deny: PhotoDenylist()).choice
        let coordinator = ScriptedCoordinator(claim: .found(Fixtures.shared(results)))
        let searcher = CountingSearcher(photos: [Self.photo("999")])
        let source = try await Self.source(coordinator, searcher)
        let photo = try await source.photo(for: .cell(Self.cell), in: Self.window, variant: 0, shape: .portrait)
        #expect(photo.id == theirs.candidates(for: .portrait)[0].id && photo.origin == .flickr)
        #expect(searcher.count.withLock { $0 } == 0)
        _ = try await source.photo(for: .cell(Self.cell), in: Self.window, variant: 0, shape: .portrait)
        #expect(coordinator.record.withLock { $0.claims } == 1, "the results are kept for the window")
    }

    @Test func aSearchHereIsPublishedAndTheAgreedFindingIsServed() async throws {
        let photos = [Self.photo("111"), Self.photo("222"), Self.photo("333")]
        let agreed = Self.candidates([Self.photo("777")])
        let coordinator = ScriptedCoordinator(claim: .search, agreed: agreed)
        let searcher = CountingSearcher(photos: photos)
        let photo = try await Self.source(coordinator, searcher).photo(for: .cell(Self.cell), in: Self.window, variant: 0, shape: .portrait)
        #expect(searcher.count.withLock { $0 } == 1)
        #expect(coordinator.record.withLock { $0.published } == [["flickr-111", "flickr-222", "flickr-333"]], "its results, as Flickr gave them")
        #expect(photo.id == "flickr-777", "the results stored first win, so that replicas agree")
    }

    @Test("what another replica learned spares the search", arguments: [CellClaim.failing, .keyRejected, .found(Data("[]".utf8))])
    func whatAnotherReplicaLearnedSparesTheSearch(_ claim: CellClaim) async throws {
        let searcher = CountingSearcher(photos: [Self.photo("111")])
        let photo = try await Self.source(ScriptedCoordinator(claim: claim), searcher).photo(
            for: .cell(Self.cell),
            in: Self.window,
            variant: 0,
            shape: .portrait
        )
        #expect(photo.origin == .stock)
        #expect(searcher.count.withLock { $0 } == 0)
    }

    @Test func aSpentSharedBudgetServesStockAndTellsTheOthers() async throws {
        let coordinator = ScriptedCoordinator(claim: .search, grantsCalls: false)
        let searcher = CountingSearcher(photos: [Self.photo("111")])
        let photo = try await Self.source(coordinator, searcher).photo(for: .cell(Self.cell), in: Self.window, variant: 0, shape: .portrait)
        #expect(photo.origin == .stock && searcher.count.withLock { $0 } == 0)
        #expect(coordinator.record.withLock { $0.failures } == 1)
    }

    @Test func aFailingSearchOrARejectedKeyIsShared() async throws {
        let failing = ScriptedCoordinator(claim: .search)
        let down = CountingSearcher(photos: [], error: FlickrError(.transient, "Flickr code 105: service unavailable"))
        #expect(try await Self.source(failing, down).photo(for: .cell(Self.cell), in: Self.window, variant: 0, shape: .portrait).origin == .stock)
        #expect(failing.record.withLock { ($0.failures, $0.keyRejections) } == (1, 0))

        let rejected = ScriptedCoordinator(claim: .search)
        let invalid = CountingSearcher(photos: [], error: FlickrError(.invalidKey, "Flickr code 100: invalid API key"))
        #expect(try await Self.source(rejected, invalid).photo(for: .cell(Self.cell), in: Self.window, variant: 0, shape: .portrait).origin == .stock)
        #expect(rejected.record.withLock { ($0.failures, $0.keyRejections) } == (0, 1))
    }

    @Test func theChoiceIsTheRankedPickThenTheNextResults() {
        let photos = (1...20).map { Self.photo("\($0)") }
        let results = Self.candidates(photos)
        let choice = CellChoice.ranking(results, cell: Self.cell, window: Self.window, deny: PhotoDenylist()).choice
        let ranking = PhotoRanking(phase: SunPhase(cell: Self.cell, window: Self.window))
        let order = ranking.choose(photos.map { RankingCandidate($0, near: Self.cell) }, key: "u09tv", window: Self.window.index)
        #expect(choice.candidates(for: .portrait).map(\.id) == order.prefix(CellChoice.kept).map { photos[$0].sourcePhoto.id })
        #expect(
            choice.photo(variant: 0, shape: .portrait, excluding: Set(choice.candidates(for: .portrait).map(\.id))) == nil
                && Set(choice.candidates(for: .portrait).map(\.id)).count == CellChoice.kept
        )
        #expect(
            CellChoice.ranking(results, cell: Self.cell, window: Self.window, deny: PhotoDenylist()).choice == choice,
            "the same in every replica"
        )
        #expect(
            CellChoice.ranking([results[0]], cell: Self.cell, window: Self.window, deny: PhotoDenylist()).choice.candidates(for: .portrait).count == 1
        )
        #expect(
            choice.candidates(for: .portrait).allSatisfy { $0.sky == SunPhase(cell: Self.cell, window: Self.window) },
            "each says the sky it was chosen for"
        )
        let json = try? JSONEncoder().encode(results)
        #expect(json.flatMap { try? JSONDecoder().decode([CandidatePhoto].self, from: $0) } == results, "results travel between replicas intact")
    }

    @Test func aReplicaAloneTakesItsShareOfTheBudget() async throws {
        // No connection (the database is unreachable, or not yet reached): the replica works alone on
        // callsPerHour / expectedReplicas, so that replicas cut off together stay within the key's budget.
        var cluster = Settings.Cluster()
        cluster.postgres = try PostgresURL("postgres://u:p@127.0.0.1:1/db")
        cluster.expectedReplicas = 4
        let replicas = try Replicas(
            cluster,
            windowSeconds: 900,
            clock: FixedClock(date: Self.window.start),
            logger: Logger(label: "test"),
            metrics: BackdropMetrics()
        )
        #expect(replicas.status == .degraded)
        let coordinator = replicas.coordinator(budget: "flickr-api-key/k", source: "flickr", callsPerHour: 40)
        var granted = 0
        for _ in 0..<20 {
            if await coordinator.sharing().takeCall() { granted += 1 }
        }
        #expect(granted == 10)
    }

    /// Answers the claims in `claims` in turn (the last one from then on).
    final class SequenceCoordinator: ClusterCoordinator, CellSharing {
        let claims: Mutex<[CellClaim]>
        init(_ claims: [CellClaim]) { self.claims = Mutex(claims) }
        func sharing() -> any CellSharing { self }
        func takeCall() async -> Bool { true }
        func claim(_ key: CellWindow) async throws -> CellClaim {
            self.claims.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
        }
        func publish(_ results: Data, for key: CellWindow) async -> Data { results }
        func read(_ key: CellWindow) async -> Data? { nil }
        func publishLooks(_ results: Data, for key: CellWindow) async -> Data? { nil }
        func takeShare(_ name: String, perHour: Int) async -> Bool? { nil }
        func returnShare(_ name: String) async {}
        func publishFailure(for key: CellWindow, backoff: Double) async {}
        func publishKeyRejected(retryAfter: Double) async {}
    }

    @Test func goingOnAloneStillHonoursALeaseAnotherReplicaHolds() async throws {
        // Another replica's lease runs 0.4 s more; then the database stops answering (the request's allowance is spent),
        // and the coordinator says "search" as a replica alone. The search waits for the lease's end all the same.
        let coordinator = SequenceCoordinator([.wait(seconds: 0.4), .search])
        let searcher = CountingSearcher(photos: [Self.photo("111")])
        let source = try await Self.source(coordinator, searcher, clock: SystemClock())
        let started = ContinuousClock.now
        let photo = try await source.photo(for: .cell(Self.cell), in: TimeWindow(containing: Date(), seconds: 900), variant: 0, shape: .portrait)
        #expect(photo.origin == .flickr && searcher.count.withLock { $0 } == 1)
        #expect(ContinuousClock.now - started >= .milliseconds(390), "not before the other replica's lease ended")
    }
}

extension ClusterTests {
    @Test func aRequestThatGaveUpOnAnotherReplicasLeaseWaitsForItsEndAndNoLonger() async {
        let clock = MovableClock(Date(timeIntervalSince1970: 1_700_000_000))
        let state = SearchState(clock: clock)
        let leases = LeaseWaits(clock: clock)
        let key = CellWindow(cell: "u09tv", window: 1)
        await leases.note(key, until: clock.now().addingTimeInterval(5))
        await state.noteTimeout(for: key, leaseUntil: await leases.until(key))
        // A second request that gave up on the same lease: still the lease's end.
        await state.noteTimeout(for: key, leaseUntil: await leases.until(key))
        #expect(await !state.mayCall(key), "the other replica's lease still runs")
        clock.advance(5)
        #expect(await state.mayCall(key), "its lease has run out: this replica takes the search over")
        #expect(await leases.end(key) == clock.now().addingTimeInterval(-5), "waiting since the first sight of the lease")
        #expect(await leases.end(key) == nil)

        let other = CellWindow(cell: "u09tw", window: 1)
        await state.noteTimeout(for: other, leaseUntil: await leases.until(other))
        clock.advance(29)
        #expect(await !state.mayCall(other), "a search of its own that hung backs the cell off for 30 s")
        clock.advance(1)
        #expect(await state.mayCall(other))
    }
}
