import Foundation

#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import HummingbirdTesting
import Testing

@testable import Backdrop

/// Repeats answered at the connection (``HotRenders``): the same bytes and headers as the route, in request order,
/// never a fallback, never across windows. These run the real server on loopback: the router test mode has no
/// connection.
@Suite("Cache hits answered at the connection", .serialized)
struct HotPathTests {
    static let paris = "/background?lat=48.8566&lon=2.3522&blur=0.5"
    static let lisbon = "/background?lat=38.72&lon=-9.14&blur=0.5"

    static func withLiveApp(clock: any WallClock = FixedClock(date: HTTPTests.epoch),
                            _ test: @Sendable (_ port: Int, _ folder: URL, _ client: any TestClientProtocol) async throws -> Void) async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var settings = HTTPTests.settings()
        settings.cache.folder = folder.path
        let app = try await buildApplication(settings, clock: clock)
        try await app.test(.live) { client in
            try await test(try #require(client.port), folder, client)
        }
    }

    static func get(_ port: Int, _ target: String, method: String = "GET", _ headers: String...) throws -> RawHTTP.Response {
        try #require(try RawHTTP.exchange(port: port, [(method, target, headers)]).first)
    }

    /// A counter's value from `/metrics`.
    static func counter(_ port: Int, _ name: String) throws -> Int {
        let text = String(decoding: try self.get(port, "/metrics").body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix("\(name) ") }
        return line.flatMap { Int(Double($0.split(separator: " ")[1]) ?? -1) } ?? 0
    }

    @Test func aRepeatGetsTheRoutesBytesAndHeadersFromTheConnection() async throws {
        try await Self.withLiveApp { port, folder, _ in
            let first = try Self.get(port, Self.paris)
            #expect(try Self.counter(port, "backdrop_cache_hot_hits_total") == 0)
            let repeated = try Self.get(port, Self.paris)
            #expect(try Self.counter(port, "backdrop_cache_hot_hits_total") == 1)
            #expect(first.status == 200 && repeated.status == 200)
            #expect(repeated.body == first.body)
            #expect(repeated.stableHeaders == first.stableHeaders)
            #expect(first.header(OpenCacheFiles.header) == nil && repeated.header(OpenCacheFiles.header) == nil)
            #expect(repeated.header("date") != nil && repeated.header("server") == "Backdrop")
            #expect(try PNGDecoder.decode(repeated.body).width == 640)
            // Both bodies left from the cache file: the route's through the file-body handler, the repeat's here.
            #expect(try Self.counter(port, "backdrop_responses_sendfile_total") == 2)

            // The open file outlives its entry: with the folder emptied (a sweep, an eviction), hits still send it.
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
            let afterSweep = try Self.get(port, Self.paris)
            #expect(afterSweep.body == first.body)
            #expect(try Self.counter(port, "backdrop_cache_hot_hits_total") == 2)
        }
    }

    @Test func headAndConditionalRequestsMatchTheRoute() async throws {
        try await Self.withLiveApp { port, _, _ in
            let variants: [(String, [String])] = [
                ("HEAD", []),
                ("GET", ["If-None-Match: ETAG"]),
                ("GET", ["If-None-Match: \"other\", W/ETAG"]),
                ("GET", ["If-Modified-Since: Fri, 15 Jan 2027 08:03:20 GMT"]),
                ("GET", ["If-Modified-Since: Thu, 01 Jan 2026 00:00:00 GMT"]),
                ("GET", ["If-None-Match: \"other\""]),
            ]
            for (index, (method, conditions)) in variants.enumerated() {
                // A render of its own per variant, so that its first request goes to the route and its second is a hit.
                let target = "\(Self.paris)&width=\(600 + index)"
                let etag = try #require(try Self.get(port, target, method: "HEAD", "Connection: close").header("etag"))
                let headers = conditions.map { $0.replacingOccurrences(of: "ETAG", with: etag) }
                let before = try Self.counter(port, "backdrop_cache_hot_hits_total")
                let route = try #require(try RawHTTP.exchange(port: port, [(method, target, headers + ["Connection: close"])]).first)
                let hit = try #require(try RawHTTP.exchange(port: port, [(method, target, headers)]).first)
                #expect(try Self.counter(port, "backdrop_cache_hot_hits_total") == before + 1, "\(method) \(conditions)")
                #expect(hit.status == route.status, "\(method) \(conditions)")
                #expect(hit.body == route.body, "\(method) \(conditions)")
                var routeHeaders = route.stableHeaders
                routeHeaders["connection"] = nil
                #expect(hit.stableHeaders == routeHeaders, "\(method) \(conditions)")
            }
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await Self.withLiveApp { port, _, _ in
            _ = try Self.get(port, Self.paris)
            // HEADs, so that the hits' writes stay small and the socket writable: only ordering keeps them back.
            let responses = try RawHTTP.exchange(port: port, [
                ("HEAD", Self.paris, []), ("GET", Self.lisbon, []), ("HEAD", Self.paris, []), ("GET", "/background?lat=91", []),
                ("GET", Self.paris, []),
            ])
            #expect(responses.map(\.status) == [200, 200, 200, 400, 200])
            let lisbon = Geohash(latitude: 38.72, longitude: -9.14, precision: 5).value
            #expect(responses.map { $0.header("x-backdrop-cell") } == ["u09tv", lisbon, "u09tv", nil, "u09tv"])
            #expect(responses[0].body.isEmpty && responses[2].body.isEmpty && !responses[4].body.isEmpty)
            #expect(responses[0].header("content-length") == String(responses[4].body.count))
            // Only the first was answered here: after a request goes to the router, the rest follow it there.
            #expect(try Self.counter(port, "backdrop_cache_hot_hits_total") == 1)
        }
    }

    @Test func aNewWindowGoesBackToTheRoute() async throws {
        let clock = MovableClock(HTTPTests.epoch)
        try await Self.withLiveApp(clock: clock) { port, _, _ in
            let first = try Self.get(port, Self.paris)
            _ = try Self.get(port, Self.paris)
            #expect(try Self.counter(port, "backdrop_cache_hot_hits_total") == 1)
            clock.advance(900)
            let next = try Self.get(port, Self.paris)
            #expect(try Self.counter(port, "backdrop_cache_hot_hits_total") == 1, "a new window is a miss")
            #expect(next.header("x-backdrop-photo-id") != first.header("x-backdrop-photo-id"))
            #expect(next.header("cache-control") == "public, max-age=700")
            let repeated = try Self.get(port, Self.paris)
            #expect(try Self.counter(port, "backdrop_cache_hot_hits_total") == 2)
            #expect(repeated.body == next.body && repeated.header("cache-control") == "public, max-age=700")
        }
    }

    @Test func badRequestsAndOtherRoutesGoToTheRouter() async throws {
        try await Self.withLiveApp { port, _, _ in
            _ = try Self.get(port, Self.paris)
            let bad = try Self.get(port, "\(Self.paris)&blur=2")
            #expect(bad.status == 400 && bad.header("content-type")?.hasPrefix("application/json") == true)
            let post = try Self.get(port, Self.paris, method: "POST")
            #expect(post.status == 405)
            let health = try Self.get(port, "/health")
            #expect(health.status == 200)
            // Responses to HEAD carry no body, whichever part of Hummingbird makes them: were one sent, the next
            // response on the connection would not parse.
            let heads = try RawHTTP.exchange(port: port, [
                ("HEAD", "/nothing", []), ("HEAD", "/", []), ("HEAD", "/openapi.yaml", []), ("HEAD", "\(Self.paris)&blur=2", []),
                ("GET", "/health", []),
            ])
            #expect(heads.map(\.status) == [404, 200, 200, 400, 200])
            #expect(heads.last?.body == health.body)
            #expect(try Self.counter(port, "backdrop_cache_hot_hits_total") == 0)
        }
    }

    @Test func hotRendersAndOpenFilesStayBounded() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("render.bdc").path
        let png = [UInt8](repeating: 7, count: OpenCacheFiles.minimumBytes)
        FileManager.default.createFile(atPath: path, contents: Data(png))
        let photo = try #require(try StockPhotoLibrary.load(folder: Fixtures.stockFolder).entries.first).photo
        let files = OpenCacheFiles(limit: 3)
        func render() -> CachedRender {
            let file = files.adopt(open(path, O_RDONLY | O_CLOEXEC), payload: 0..<png.count)
            return CachedRender(png: png, photo: photo, place: .unknown, created: HTTPTests.epoch, file: file)
        }
        #expect(files.adopt(open(path, O_RDONLY | O_CLOEXEC), payload: 0..<100) == nil, "too small to gain from sendfile")

        let hot = HotRenders(limit: 2, clock: FixedClock(date: HTTPTests.epoch), windowSeconds: 900, geohashPrecision: 5,
                             defaults: Settings().renderDefaults)
        let window = TimeWindow(containing: HTTPTests.epoch, seconds: 900)
        for blur in 1...3 {
            hot.remember(render(), place: .unknown, window: window, spec: RenderSpec(size: .init(width: 640, height: 1136), style: .dark,
                                                                                     blurHundredths: blur))
        }
        #expect(hot.count == 2, "bounded in number")
        #expect(files.count == 2, "the files of forgotten renders are closed")
        let full = (0..<3).map { _ in render() }
        #expect(full.filter { $0.file != nil }.count == 1 && files.count == 3, "no file is opened past the table's limit")

        let next = TimeWindow(containing: HTTPTests.epoch.addingTimeInterval(900), seconds: 900)
        hot.remember(render(), place: .unknown, window: next, spec: Settings().renderDefaults)
        #expect(hot.count == 0, "a new window drops the last one's renders (and this one got no file: the table is full)")
        withExtendedLifetime(full) { #expect(files.count == 1) }
    }
}
