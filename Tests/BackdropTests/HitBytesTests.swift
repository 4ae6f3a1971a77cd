import Foundation
import NIOCore
import Testing

@testable import Backdrop

/// Hits answered from their request's exact bytes before decoding (``HitBytesHandler``): byte for byte the answer the
/// route gave, for those bytes only, in order behind pipelined requests, never for bytes that are part of a body, and
/// never keeping open a connection the client asked to close.
@Suite("Hits answered from their request's bytes", .serialized)
struct HitBytesTests {
    static let target = "/background?lat=48.8566&lon=2.3522&blur=0.5"
    static let get = "GET \(target) HTTP/1.1\r\nHost: localhost\r\nUser-Agent: one\r\n\r\n"
    static let health = "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"

    static func counters(_ port: Int) async throws -> (replayed: Int, undecoded: Int) {
        (
            try await LiveServer.counter(port, "backdrop_responses_replayed_total"),
            try await LiveServer.counter(port, "backdrop_responses_replayed_undecoded_total")
        )
    }

    /// The head's bytes without its `Date` line.
    static func undated(_ answer: RawHTTP.Response) -> String {
        String(decoding: answer.head, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.hasPrefix("Date: ") }.joined(separator: "\r\n")
    }

    @Test func theSameBytesGetTheRoutesAnswerUndecoded() async throws {
        try await LiveServer.run(middleware: []) { port, _ in
            let answers = try await RawHTTP.onItsOwnThread { try RawHTTP.inTurn(port: port, [Self.get, Self.get, Self.get]) }
            #expect(answers.map(\.status) == [200, 200, 200])
            // The clock stands still: Cache-Control too is the route's, byte for byte; Date is the app's clock's (the
            // router's is Hummingbird's, the real time).
            let route = Self.undated(answers[0])
            #expect(Self.undated(answers[1]) == route && Self.undated(answers[2]) == route, "\(answers[1].head.count) bytes")
            #expect(answers[1].header("date") == HTTPDate.format(TestApp.epoch))
            #expect(answers[1].body == answers[0].body && answers[2].body == answers[0].body)
            var counts = try await Self.counters(port)
            #expect(counts.replayed == 2 && counts.undecoded == 2)
            // The same request in other bytes is decoded and replayed, and its bytes then answered undecoded too.
            let other = "GET \(Self.target) HTTP/1.1\r\nUser-Agent: two\r\nHost: localhost\r\n\r\n"
            let more = try await RawHTTP.onItsOwnThread { try RawHTTP.inTurn(port: port, [other, other]) }
            #expect(more.map(Self.undated) == [route, route] && more.allSatisfy { $0.body == answers[0].body })
            counts = try await Self.counters(port)
            #expect(counts.replayed == 4 && counts.undecoded == 3)
            // Counted as the router counts.
            #expect(try await LiveServer.counter(port, "backdrop_requests_total{route=\"/background\",status=\"200\"}") == 5)
            #expect(try await LiveServer.counter(port, "backdrop_images_total{format=\"png\",status=\"200\"}") == 5)
            #expect(try await LiveServer.counter(port, "backdrop_responses_sendfile_total") == 5)
        }
    }

    @Test func pipelinedRequestsKeepTheirPlaceInLine() async throws {
        try await LiveServer.run(middleware: []) { port, _ in
            let first = try await LiveServer.get(port, Self.target)
            _ = try await RawHTTP.onItsOwnThread { try RawHTTP.inTurn(port: port, [Self.get]) }
            let bad = "GET /background?lat=91 HTTP/1.1\r\nHost: localhost\r\n\r\n"
            let text = Self.get + Self.health + Self.get + bad + Self.get
            let answers = try await RawHTTP.onItsOwnThread { try RawHTTP.pipelined(port: port, text, count: 5) }
            #expect(answers.map(\.status) == [200, 200, 200, 400, 200])
            let types = answers.map { $0.header("content-type") ?? "" }
            #expect(
                types == ["image/png", "application/json; charset=utf-8", "image/png", "application/json; charset=utf-8", "image/png"],
                "\(types)"
            )
            #expect([0, 2, 4].allSatisfy { answers[$0].body == first.body })
            #expect(try await Self.counters(port).undecoded >= 1, "the first, read with nothing before it")
        }
    }

    @Test func bytesInABodyAreNeverARequest() async throws {
        try await LiveServer.run(middleware: []) { port, _ in
            _ = try await RawHTTP.onItsOwnThread { try RawHTTP.inTurn(port: port, [Self.get, Self.get]) }
            let before = try await Self.counters(port)
            // The remembered request's bytes as a POST's body, by length and chunked, then a request for /health: two
            // answers, the second /health's.
            let sized = "POST \(Self.target) HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(Self.get.utf8.count)\r\n\r\n" + Self.get
            let chunk = String(Self.get.utf8.count, radix: 16)
            let chunked = "POST \(Self.target) HTTP/1.1\r\nHost: localhost\r\ntransfer-encoding: chunked\r\n\r\n\(chunk)\r\n\(Self.get)\r\n0\r\n\r\n"
            for post in [sized, chunked] {
                let answers = try await RawHTTP.onItsOwnThread { try RawHTTP.pipelined(port: port, post + Self.health, count: 2) }
                #expect(answers[0].status != 200 && answers[0].header("content-type") != "image/png", "\(answers[0].status)")
                #expect(answers[1].status == 200 && answers[1].header("content-type") == "application/json; charset=utf-8")
            }
            #expect(try await Self.counters(port) == before, "no body was answered as a request")
        }
    }

    @Test func aClientThatAsksToCloseIsClosed() async throws {
        try await LiveServer.run(middleware: []) { port, _ in
            _ = try await RawHTTP.onItsOwnThread { try RawHTTP.inTurn(port: port, [Self.get, Self.get]) }
            let closing = "GET \(Self.target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
            let received = try await RawHTTP.onItsOwnThread {
                let socket = try RawHTTP.connect(port: port)
                defer { RawHTTP.close(socket) }
                try RawHTTP.send(socket, closing)
                return try RawHTTP.readToEnd(socket)  // fails unless the server closes the connection
            }
            #expect(received.starts(with: Array("HTTP/1.1 200 OK\r\n".utf8)))
        }
    }

    @Test func theHeadsAreBoundedAndOrdinaryTrafficKeepsThem() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let now = TestApp.epoch
        let replays = HitReplays(limit: 64, clock: FixedClock(date: now))
        let file = try #require(try Fixtures.openCacheFile(folder, bytes: OpenFileBudget.minimumPayload, budget: OpenFileBudget(limit: 1)))
        let terms = Fixtures.replayTerms(until: now + 60)
        let key = HitReplays.Key(target: Self.target, accept: nil, origin: nil)
        replays.keep(HitReplays.Replay(head: ["Content-Type": "image/png"], file: file, terms: terms), for: key, at: now)
        func head(_ n: Int) -> ByteBuffer { ByteBuffer(string: "GET \(Self.target) HTTP/1.1\r\nHost: localhost\r\nUser-Agent: \(n)\r\n\r\n") }
        // A deployment's clients, each its own bytes for the same request: every one kept and answered.
        for n in 0..<64 { replays.remember(head: head(n), as: key, at: now) }
        #expect((0..<64).allSatisfy { replays.replay(head: head($0), at: now)?.2 == key })
        // A flood of distinct heads: the table stays at its limit, the newest kept; a head over 2 kB is not kept.
        for n in 64..<10_000 { replays.remember(head: head(n), as: key, at: now) }
        #expect(replays.headCount == 64 && replays.replay(head: head(9_999), at: now) != nil)
        let long = ByteBuffer(string: "GET \(Self.target) HTTP/1.1\r\nX: \(String(repeating: "a", count: HeadBytes.longest))\r\n\r\n")
        replays.remember(head: long, as: key, at: now)
        #expect(replays.replay(head: long, at: now) == nil)
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: x\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nHost: x\r\nUpgrade-Insecure-Requests: 1\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: x\r\nCONTENT-LENGTH: 0\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: x\r\nupgrade: websocket\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: x\nX: y\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: x\rX: y\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nHost: x\r\n\r\n", false),
        ("CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n", false),
        ("get / HTTP/1.1\r\nHost: x\r\n\r\n", false),
    ])
    func aHeadIsPlainOnlyWhenTheDecoderMustReadItAsIs(_ text: String, _ plain: Bool) throws {
        let buffer = ByteBuffer(string: text + "GET /next HTTP/1.1\r\n")
        let length = try #require(HeadBytes.length(buffer))
        #expect(length == text.utf8.count)
        #expect(HeadBytes.isPlain(try #require(buffer.getSlice(at: 0, length: length))) == plain)
    }

    @Test func aHeadEndsAtItsFirstBlankLineWithinTheLongest() {
        #expect(HeadBytes.length(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: x\r\n")) == nil, "not yet whole")
        let long = "GET /\(String(repeating: "a", count: HeadBytes.longest)) HTTP/1.1\r\n\r\n"
        #expect(HeadBytes.length(ByteBuffer(string: long)) == nil, "longer than answered from bytes")
    }
}
