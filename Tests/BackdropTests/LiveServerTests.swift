import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import Backdrop

/// The real server on loopback, through a raw socket: what only a connection shows (pipelining, HEAD bodies on the
/// wire, the router's middleware seeing every answer, the HTTP/1 channel's configuration).
@Suite("A live server on loopback", .serialized)
struct LiveServerTests {
    static let paris = "/background?lat=48.8566&lon=2.3522&blur=0.5"
    static let lisbon = "/background?lat=38.72&lon=-9.14&blur=0.5"

    static func withLiveApp(
        clock: any WallClock = FixedClock(date: TestApp.epoch),
        seen: LiveServer.Seen = LiveServer.Seen(),
        configure: (inout Settings) -> Void = { _ in },
        _ test: @Sendable (_ port: Int, _ folder: URL) async throws -> Void
    ) async throws {
        try await LiveServer.run(clock: clock, middleware: [seen.witness], configure: configure, test)
    }

    @Test func aMiddlewareAddedToTheRouterSeesEveryBackgroundResponse() async throws {
        let seen = LiveServer.Seen()
        try await Self.withLiveApp(seen: seen) { port, _ in
            let first = try await LiveServer.get(port, Self.paris)
            let etag = try #require(first.header("etag"))
            var statuses = [first.status]
            // Repeats (cache hits), HEAD, conditional requests, pipelined ones and errors: each one is seen.
            statuses.append(try await LiveServer.get(port, Self.paris).status)
            statuses.append(try await LiveServer.get(port, Self.paris, method: "HEAD").status)
            statuses.append(try await LiveServer.get(port, Self.paris, "If-None-Match: \(etag)").status)
            statuses.append(try await LiveServer.get(port, Self.paris, method: "HEAD", "If-None-Match: \(etag)").status)
            statuses.append(try await LiveServer.get(port, "\(Self.paris)&blur=2").status)
            statuses.append(try await LiveServer.get(port, Self.paris, method: "POST").status)
            let pipelined = try RawHTTP.exchange(
                port: port,
                [
                    ("GET", Self.paris, []), ("HEAD", Self.lisbon, []), ("GET", Self.paris, ["If-None-Match: \(etag)"]),
                ]
            )
            statuses += pipelined.map(\.status)
            #expect(statuses == [200, 200, 200, 304, 304, 400, 405, 200, 200, 304])
            let background = seen.all.filter { $0.path == "/background" }
            #expect(background.map(\.status) == statuses)
            #expect(background.map(\.method) == ["GET", "GET", "HEAD", "GET", "HEAD", "GET", "POST", "GET", "HEAD", "GET"])
        }
    }

    @Test func cachedBodiesAreSentFromTheirFilesByteForByte() async throws {
        try await Self.withLiveApp { port, folder in
            let first = try await LiveServer.get(port, Self.paris)
            let repeated = try await LiveServer.get(port, Self.paris)
            #expect(first.status == 200 && repeated.body == first.body)
            #expect(try PNGDecoder.decode(repeated.body).width == 640)
            #expect(try await LiveServer.counter(port, "backdrop_responses_sendfile_total") == 2, "the written file, then the held one")
            // The open file outlives its entry: with the folder emptied (a sweep, an eviction), it still sends the same bytes.
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
            #expect(try await LiveServer.get(port, Self.paris).body == first.body)
            #expect(try await LiveServer.counter(port, "backdrop_responses_sendfile_total") == 3)
            // Small bodies are written from memory: one write beats a write and a sendfile.
            let small = try await LiveServer.get(port, "\(Self.paris)&width=40&height=40")
            #expect(small.status == 200 && small.body.count < OpenFileBudget.minimumPayload)
            #expect(try await LiveServer.counter(port, "backdrop_responses_sendfile_total") == 3)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await Self.withLiveApp { port, _ in
            _ = try await LiveServer.get(port, Self.paris)
            let responses = try RawHTTP.exchange(
                port: port,
                [
                    ("HEAD", Self.paris, []), ("GET", Self.lisbon, []), ("HEAD", Self.paris, []), ("GET", "/background?lat=91", []),
                    ("GET", Self.paris, []),
                ]
            )
            #expect(responses.map(\.status) == [200, 200, 200, 400, 200])
            let lisbon = Geohash(latitude: 38.72, longitude: -9.14, precision: 5).value
            #expect(responses.map { $0.header("x-backdrop-cell") } == ["u09tv", lisbon, "u09tv", nil, "u09tv"])
            #expect(responses[0].body.isEmpty && responses[2].body.isEmpty && !responses[4].body.isEmpty)
            #expect(responses[0].header("content-length") == String(responses[4].body.count))
        }
    }

    @Test func repeatsAreByteForByteAndANewWindowGetsANewPhoto() async throws {
        let clock = MovableClock(TestApp.epoch)
        try await Self.withLiveApp(clock: clock) { port, _ in
            let first = try await LiveServer.get(port, Self.paris)
            let repeated = try await LiveServer.get(port, Self.paris)
            #expect(repeated.body == first.body && repeated.stableHeaders == first.stableHeaders)
            #expect(first.header("date") != nil && first.header("server") == "Backdrop")
            clock.advance(900)
            let next = try await LiveServer.get(port, Self.paris)
            #expect(next.header("x-backdrop-photo-id") != first.header("x-backdrop-photo-id"))
            #expect(next.header("cache-control") == "public, max-age=700, stale-while-revalidate=900")
        }
    }

    @Test func headResponsesCarryNoBodyOnTheWire() async throws {
        try await Self.withLiveApp { port, _ in
            let health = try await LiveServer.get(port, "/health")
            #expect(health.status == 200)
            // Were a body sent after any of these heads, the next response on the connection would not parse.
            let heads = try RawHTTP.exchange(
                port: port,
                [
                    ("HEAD", "/nothing", []), ("HEAD", "/", []), ("HEAD", "/openapi.yaml", []), ("HEAD", "\(Self.paris)&blur=2", []),
                    ("HEAD", Self.paris, []), ("GET", "/health", []),
                ]
            )
            #expect(heads.map(\.status) == [404, 200, 200, 400, 200, 200])
            #expect(heads.last?.body == health.body)
        }
    }

    @Test func anIdleConnectionIsClosedAfterTheIdleTimeout() async throws {
        try await Self.withLiveApp(configure: { $0.server.idleTimeout = .seconds(1) }) { port, _ in
            let socket = try RawHTTP.connect(port: port)
            defer { RawHTTP.close(socket) }
            // Nothing is sent: the server closes the connection by itself (the read sees end of file, well before the
            // raw client's own 20-second bound).
            let started = ContinuousClock.now
            #expect(try RawHTTP.readToEnd(socket).isEmpty)
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    @Test func aHeadSentTooSlowlyOrAStalledBodyClosesTheConnection() async throws {
        try await Self.withLiveApp(configure: { $0.server.requestHeadTimeout = .seconds(1) }) { port, _ in
            // An unfinished head, its bytes still trickling in: closed after the head timeout, not the idle timeout.
            let trickler = try RawHTTP.connect(port: port)
            defer { RawHTTP.close(trickler) }
            try RawHTTP.send(trickler, "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: a")
            let started = ContinuousClock.now
            try RawHTTP.send(trickler, "b")
            #expect(try RawHTTP.readToEnd(trickler).isEmpty)
            #expect(ContinuousClock.now - started < .seconds(5))
            // A body announced and never finished: closed too.
            let stalled = try RawHTTP.connect(port: port)
            defer { RawHTTP.close(stalled) }
            try RawHTTP.send(stalled, "POST /health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\nabc")
            let stalledAt = ContinuousClock.now
            _ = try RawHTTP.readToEnd(stalled)
            // Closed by the 1-s timeout: the close itself is timed, with 4 s of margin for a loaded machine (the raw
            // client would wait 20 s).
            #expect(ContinuousClock.now - stalledAt < .seconds(5))
            // A whole request on a fresh connection is answered as usual.
            #expect(try await LiveServer.get(port, "/health").status == 200)
        }
    }

    @Test func http10IsClosedAfterItsResponseUnlessItAsksForKeepAlive() async throws {
        try await Self.withLiveApp { port, _ in
            let plain = try RawHTTP.connect(port: port)
            defer { RawHTTP.close(plain) }
            try RawHTTP.send(plain, "GET /health HTTP/1.0\r\n\r\n")
            let text = String(decoding: try RawHTTP.readToEnd(plain), as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.") && text.contains(" 200 "))
            #expect(text.lowercased().contains("connection: close"))

            let kept = try RawHTTP.connect(port: port)
            defer { RawHTTP.close(kept) }
            try RawHTTP.send(kept, "GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /health HTTP/1.0\r\n\r\n")
            let both = String(decoding: try RawHTTP.readToEnd(kept), as: UTF8.self)
            #expect(both.components(separatedBy: " 200 ").count == 3, "both requests answered on one connection")
            #expect(both.lowercased().contains("connection: keep-alive"))
        }
    }

    @Test func oversizedHeadersAreRefused() async throws {
        try await Self.withLiveApp { port, _ in
            func value(_ count: Int) -> String { String(repeating: "a", count: count) }
            func refused(_ answer: RawHTTP.Response) -> Bool { answer.status == 400 || answer.status == 431 }
            // A field's value: 8 KiB is accepted, one byte more refused.
            #expect(try await LiveServer.get(port, "/health", "X-Big: \(value(8 << 10))").status == 200)
            #expect(try await refused(LiveServer.get(port, "/health", "X-Big: \(value((8 << 10) + 1))")))
            // The target and all fields' names and values: 16 KiB in all is accepted ("/health" is 7 of them, "Host" and
            // "localhost" 13), one byte more refused.
            let third = (16 << 10) - 7 - 13 - 3 * 3 - 2 * 5454
            #expect(try await LiveServer.get(port, "/health", "X-A: \(value(5454))", "X-B: \(value(5454))", "X-C: \(value(third))").status == 200)
            #expect(try await refused(LiveServer.get(port, "/health", "X-A: \(value(5454))", "X-B: \(value(5454))", "X-C: \(value(third + 1))")))
            // 100 fields (Host and 99 more) are accepted, 101 refused.
            let fields = (0..<100).map { "X-\($0): 1" }
            #expect(try RawHTTP.exchange(port: port, [("GET", "/health", Array(fields.prefix(99)))]).first?.status == 200)
            let overflow = try #require(try RawHTTP.exchange(port: port, [("GET", "/health", fields)]).first)
            #expect(refused(overflow))
            #expect(try await LiveServer.get(port, "/health").status == 200)
        }
    }

    @Test func pathsAreCanonicalAndStaticFilesStayInThePublicFolder() async throws {
        let outside = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: outside) }
        try Data("TOP-SECRET-CONTENT".utf8).write(to: outside.appendingPathComponent("secret.txt"))
        let publicFolder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: publicFolder) }
        try Data("<p>demo</p>".utf8).write(to: publicFolder.appendingPathComponent("index.html"))
        try Data("let x = 1".utf8).write(to: publicFolder.appendingPathComponent("demo.js"))
        try FileManager.default.createSymbolicLink(
            at: publicFolder.appendingPathComponent("leak.txt"),
            withDestinationURL: outside.appendingPathComponent("secret.txt")
        )
        try FileManager.default.createDirectory(at: publicFolder.appendingPathComponent("docs"), withIntermediateDirectories: true)
        try await Self.withLiveApp(configure: { $0.server.publicFolder = publicFolder.path }) { port, _ in
            #expect(try await LiveServer.get(port, "/demo.js").status == 200)
            let cases: [(String, Int)] = [
                ("/demo.js%00.html", 400), ("//%00evil.com", 400), ("/leak.txt", 404), ("//evil.com", 404), ("//background", 404),
                ("/background/", 404), ("/health/", 404), ("/%2e%2e/secret.txt", 404), ("/docs/../demo.js", 404),
            ]
            for (target, status) in cases {
                let answer = try await LiveServer.get(port, target)
                #expect(answer.status == status, "\(target)")
                #expect(answer.header("content-type")?.hasPrefix("application/json") == true, "\(target)")
                #expect(answer.header("location") == nil, "\(target)")
                #expect(!String(decoding: answer.body, as: UTF8.self).contains("TOP-SECRET"), "\(target)")
            }
            // A folder is a 404 with or without its slash, never a redirect.
            let folder = try await LiveServer.get(port, "/docs")
            #expect(folder.status == 404 && folder.header("location") == nil)
        }
    }

    /// The path guard reads a path byte by byte; it must judge every path as its definition does (segments split on `/`,
    /// none empty, `.` or `..`), on 20,000 seeded paths of slashes, dots and letters.
    @Test func canonicalPathsAreJudgedAsSplitSegmentsWouldBe() {
        func bySplitting(_ path: String) -> Bool {
            guard path.first == "/" else { return false }
            if path == "/" { return true }
            return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
        }
        var random = SeededGenerator(seed: 60)
        let alphabet: [Character] = ["/", "/", ".", ".", "a", "b"]
        var canonical = 0
        for _ in 0..<20_000 {
            let path = String((0..<Int.random(in: 0...9, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? "/" })
            #expect(PathGuardMiddleware<BasicRequestContext>.isCanonical(path) == bySplitting(path), "\(path)")
            if bySplitting(path) { canonical += 1 }
        }
        #expect(canonical > 500, "the paths include canonical ones: \(canonical)")
    }

    @Test func malformedRequestsGetOneJSONErrorAndNoAnswerBeforeIt() async throws {
        try await Self.withLiveApp { port, _ in
            for (name, request) in [
                ("garbage", "NOT A REQUEST\r\n\r\n"),
                ("bad chunked body", "GET /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"),
                ("body too large", "POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n" + String(repeating: "a", count: 70_000)),
            ] {
                let socket = try RawHTTP.connect(port: port)
                defer { RawHTTP.close(socket) }
                try? RawHTTP.send(socket, request)
                let text = String(decoding: try RawHTTP.readToEnd(socket), as: UTF8.self)
                #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2, "\(name): exactly one response: \(text.prefix(300))")
                let status = name == "body too large" ? "413" : "400"
                #expect(text.hasPrefix("HTTP/1.1 \(status)"), "\(name)")
                #expect(text.lowercased().contains("content-type: application/json"), "\(name)")
                #expect(text.contains("{\"error\":"), "\(name)")
                #expect(text.lowercased().contains("x-content-type-options: nosniff"), "\(name)")
            }
            #expect(try await LiveServer.get(port, "/health").status == 200)
        }
    }
}
