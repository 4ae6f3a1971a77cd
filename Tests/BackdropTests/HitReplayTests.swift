import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import Backdrop

/// Cache hits sent again beneath the router (``HitReplays``, ``HitReplayHandler``): the same answer the route gives,
/// its time-dependent headers made anew, for exactly the request it stands for, in order on a pipelined connection,
/// counted and logged as the router's, within a bounded table. A live server with no middleware of the tests' own,
/// since such middleware turns replays off.
@Suite("Hits replayed beneath the router", .serialized)
struct HitReplayTests {
    static let paris = "/background?lat=48.8566&lon=2.3522&blur=0.5"
    static let lisbon = "/background?lat=38.72&lon=-9.14&blur=0.5"

    /// The header names in order, and their values but for `Date` and `Cache-Control`.
    static func shape(_ response: RawHTTP.Response) -> [String] {
        response.headers.map { ["date", "cache-control"].contains($0.name) ? $0.name : "\($0.name): \($0.value)" }
    }

    @Test func aReplayIsTheRoutesAnswerWithItsTimesMadeAnew() async throws {
        let clock = MovableClock(TestApp.epoch)
        try await LiveServer.run(clock: clock, middleware: []) { port, _ in
            let first = try await LiveServer.get(port, Self.paris)
            #expect(try await LiveServer.counter(port, "backdrop_responses_replayed_total") == 0)
            clock.advance(100)
            let replayed = try await LiveServer.get(port, Self.paris)
            #expect(try await LiveServer.counter(port, "backdrop_responses_replayed_total") == 1)
            // A HEAD always goes to the route: what it says now is what the replay must say.
            let routed = try await LiveServer.get(port, Self.paris, method: "HEAD")
            #expect(replayed.status == 200 && replayed.body == first.body)
            #expect(Self.shape(replayed) == Self.shape(first), "the same headers in the same order")
            #expect(replayed.header("cache-control") == routed.header("cache-control"))
            #expect(replayed.header("cache-control") != first.header("cache-control"), "100 s less of the window left")
            #expect(replayed.header("date") == HTTPDate.format(clock.now()))
            // Counted as the router counts: every answer, replayed or not, under its route and format.
            #expect(try await LiveServer.counter(port, "backdrop_requests_total{route=\"/background\",status=\"200\"}") == 3)
            #expect(try await LiveServer.counter(port, "backdrop_images_total{format=\"png\",status=\"200\"}") == 3)
            #expect(try await LiveServer.counter(port, "backdrop_responses_sendfile_total") == 2)
        }
    }

    @Test func aReplayStandsForItsRequestAlone() async throws {
        let origins = CORSOrigins.listed(["https://a.example", "https://b.example"])
        try await LiveServer.run(middleware: [], configure: { $0.server.corsOrigins = origins }) { port, _ in
            let png = try await LiveServer.get(port, Self.paris)
            _ = try await LiveServer.get(port, Self.paris)
            #expect(try await LiveServer.counter(port, "backdrop_responses_replayed_total") == 1)
            // Another Accept chooses another format; another Origin gets its own CORS answer; validators may make a
            // 304; another query is another answer.
            let webp = try await LiveServer.get(port, Self.paris, "Accept: image/webp")
            #expect(webp.header("content-type") == "image/webp")
            let a = try await LiveServer.get(port, Self.paris, "Origin: https://a.example")
            let b = try await LiveServer.get(port, Self.paris, "Origin: https://b.example")
            #expect(a.header("access-control-allow-origin") == "https://a.example")
            #expect(b.header("access-control-allow-origin") == "https://b.example")
            let etag = try #require(png.header("etag"))
            #expect(try await LiveServer.get(port, Self.paris, "If-None-Match: \(etag)").status == 304)
            #expect(try await LiveServer.get(port, Self.paris, "If-None-Match: \"other\"").body == png.body)
            #expect(try await LiveServer.get(port, "\(Self.paris)&format=jpeg").header("content-type") == "image/jpeg")
            #expect(try await LiveServer.counter(port, "backdrop_responses_replayed_total") == 1, "none of those was a replay")
            // Each of those is then replayed for its own request, and only for it.
            let webpAgain = try await LiveServer.get(port, Self.paris, "Accept: image/webp")
            let aAgain = try await LiveServer.get(port, Self.paris, "Origin: https://a.example")
            let bAgain = try await LiveServer.get(port, Self.paris, "Origin: https://b.example")
            #expect(try await LiveServer.counter(port, "backdrop_responses_replayed_total") == 4)
            #expect(webpAgain.body == webp.body && webpAgain.header("content-type") == "image/webp")
            #expect(aAgain.header("access-control-allow-origin") == "https://a.example")
            #expect(bAgain.header("access-control-allow-origin") == "https://b.example")
        }
    }

    @Test func aReplayEndsWithItsWindow() async throws {
        let clock = MovableClock(TestApp.epoch)
        try await LiveServer.run(clock: clock, middleware: []) { port, _ in
            let first = try await LiveServer.get(port, Self.paris)
            clock.advance(900)
            let next = try await LiveServer.get(port, Self.paris)
            #expect(next.header("x-backdrop-photo-id") != first.header("x-backdrop-photo-id"))
            #expect(next.header("cache-control") == "public, max-age=700, stale-while-revalidate=900")
            #expect(try await LiveServer.counter(port, "backdrop_responses_replayed_total") == 0)
        }
    }

    @Test func pipelinedReplaysKeepTheirPlaceInLine() async throws {
        try await LiveServer.run(middleware: []) { port, _ in
            let paris = try await LiveServer.get(port, Self.paris)
            // Replays (the first and the last), a miss, a request behind the miss that a replay stands for (it waits
            // its turn through the router), a HEAD and an error.
            let responses = try await RawHTTP.onItsOwnThread {
                try RawHTTP.exchange(
                    port: port,
                    [
                        ("GET", Self.paris, []), ("GET", Self.lisbon, []), ("GET", Self.paris, []), ("HEAD", Self.paris, []),
                        ("GET", "/background?lat=91", []), ("GET", Self.paris, []),
                    ]
                )
            }
            #expect(responses.map(\.status) == [200, 200, 200, 200, 400, 200])
            let lisbon = Geohash(latitude: 38.72, longitude: -9.14, precision: 5).value
            #expect(responses.map { $0.header("x-backdrop-cell") } == ["u09tv", lisbon, "u09tv", "u09tv", nil, "u09tv"])
            #expect(responses[0].body == paris.body && responses[2].body == paris.body && responses[5].body == paris.body)
            #expect(responses[3].body.isEmpty)
            // The first was replayed; the last is too unless it was read while those before it were in the router.
            #expect(try await LiveServer.counter(port, "backdrop_responses_replayed_total") >= 1)
        }
    }

    /// A file holding `bytes` bytes, held open as the disk cache holds a render's.
    static func openFile(_ folder: URL, budget: OpenFileBudget) throws -> CachedFile {
        try #require(try Fixtures.openCacheFile(folder, bytes: OpenFileBudget.minimumPayload, budget: budget))
    }

    @Test func theTableIsBoundedAndOrdinaryTrafficKeepsItsReplays() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let now = TestApp.epoch
        let replays = HitReplays(limit: 64, clock: FixedClock(date: now))
        let file = try Self.openFile(folder, budget: OpenFileBudget(limit: 4))
        func key(_ n: Int) -> HitReplays.Key { HitReplays.Key(target: "/background?cell=\(n)", accept: nil, origin: nil) }
        let replay = HitReplays.Replay(head: ["Content-Type": "image/png", "Date": "then"], file: file, terms: Fixtures.replayTerms(until: now + 60))
        // A deployment's few cell URLs: every one kept and sent again.
        for n in 0..<64 { replays.keep(replay, for: key(n), at: now) }
        #expect((0..<64).allSatisfy { replays.replay(key($0), at: now) != nil })
        // A flood of distinct targets (every request its own coordinates): the table stays at its limit.
        for n in 64..<10_000 { replays.keep(replay, for: key(n), at: now) }
        #expect(replays.count == 64)
        #expect(replays.replay(key(9_999), at: now) != nil, "the newest is kept")
    }

    @Test func aReplayPastItsTermsOrItsFileIsGone() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let now = TestApp.epoch
        let replays = HitReplays(limit: 8, clock: FixedClock(date: now))
        let budget = OpenFileBudget(limit: 4)
        let kept = try Self.openFile(folder, budget: budget)
        let key = HitReplays.Key(target: "/background?cell=u09tv", accept: nil, origin: nil)
        replays.keep(HitReplays.Replay(head: [:], file: kept, terms: Fixtures.replayTerms(until: now + 60)), for: key, at: now)
        #expect(replays.replay(key, at: now + 59) != nil)
        #expect(replays.replay(key, at: now + 60) == nil, "its max-age has passed")
        #expect(replays.count == 0)
        replays.keep(HitReplays.Replay(head: [:], file: kept, terms: Fixtures.replayTerms(until: now + 60)), for: key, at: now)
        kept.revoke()  // its entry left the disk cache
        #expect(replays.replay(key, at: now) == nil)
        var dropped: CachedFile? = try Self.openFile(folder, budget: budget)
        replays.keep(HitReplays.Replay(head: [:], file: try #require(dropped), terms: Fixtures.replayTerms(until: now + 60)), for: key, at: now)
        dropped = nil  // its render left the memory cache: the replay does not keep the file open
        #expect(budget.count == 0 && replays.replay(key, at: now) == nil)
    }

    @Test func aReplayKeepsTheRoutesHeadWithItsTimesInPlace() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try Self.openFile(folder, budget: OpenFileBudget(limit: 1))
        let terms = HitReplays.Terms(
            until: TestApp.epoch + 60,
            cacheControl: { "public, max-age=\(Int(TestApp.epoch.timeIntervalSince1970 + 60 - $0.timeIntervalSince1970))" },
            route: "/background",
            format: "png",
            source: nil,
            cell: nil,
            metrics: BackdropMetrics()
        )
        let head: HTTPHeaders = ["Date": "then", "Cache-Control": "public, max-age=60", "Connection": "close", "ETag": "\"1\""]
        let replay = HitReplays.Replay(head: head, file: file, terms: terms)
        let sent = replay.headers(date: "now", at: TestApp.epoch + 15)
        #expect(sent.map { "\($0.name): \($0.value)" } == ["Date: now", "Cache-Control: public, max-age=45", "ETag: \"1\""])
    }
}
