import Foundation
import Testing

@testable import Backdrop

/// The public folder as a file server: byte ranges as RFC 9110 reads them, no hidden files, folders not served.
@Suite("Static files")
struct StaticFileTests {
    /// RFC 9110 section 14, case by case, for a file of 100 bytes (and one of 0).
    @Test(
        "Range headers",
        arguments: [
            ("bytes=0-9", 100, ByteRange.part(0...9)),
            ("bytes=90-", 100, .part(90...99)),
            ("bytes=-1", 100, .part(99...99)),  // the last byte, not the first two
            ("bytes=-10", 100, .part(90...99)),
            ("bytes=-1000", 100, .part(0...99)),  // a suffix longer than the file: all of it
            ("bytes=50-1000", 100, .part(50...99)),  // an end past the file is clamped
            ("bytes=99-99", 100, .part(99...99)),
            ("bytes=100-", 100, .unsatisfiable),  // the first byte past the end
            ("bytes=100-200", 100, .unsatisfiable),
            ("bytes=99999999999999999999-", 100, .unsatisfiable),
            ("bytes=-0", 100, .unsatisfiable),
            ("bytes=0-0", 0, .unsatisfiable),  // nothing of an empty file can be sent
            ("bytes=-5", 0, .unsatisfiable),
            ("BYTES=0-1", 100, .part(0...1)),  // the unit is case-insensitive
            (" bytes = 0-1 ", 100, .part(0...1)),
            ("items=0-5", 100, .whole),  // an unknown unit is ignored
            ("bytes=5-2", 100, .whole),  // an invalid range is ignored
            ("bytes=a-b", 100, .whole),
            ("bytes=-", 100, .whole),
            ("bytes=0-1,5-6", 100, .whole),  // several ranges: the whole file (a multipart answer is optional)
            ("bytes=+1-2", 100, .whole),
            ("0-5", 100, .whole),
        ]
    )
    func rangeHeaders(_ header: String, length: Int, expected: ByteRange) {
        #expect(ByteRange(header: header, length: length) == expected)
    }

    @Test func noRangeIsTheWholeFile() {
        #expect(ByteRange(header: nil, length: 10) == .whole)
    }
}

/// The same through a live server (in the live suite, whose tests run one at a time: their raw sockets block a thread).
extension LiveServerTests {
    static func withPublicFolder(_ test: @Sendable (_ port: Int, _ folder: URL) async throws -> Void) async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = Data((0..<3000).map { UInt8(0x21 + $0 % 90) })  // printable, so that the raw reader counts it exactly
        try bytes.write(to: folder.appendingPathComponent("data.bin"))
        try Data("<p>demo</p>".utf8).write(to: folder.appendingPathComponent("index.html"))
        try Data("SECRET=1".utf8).write(to: folder.appendingPathComponent(".env"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try Data("[core]".utf8).write(to: folder.appendingPathComponent(".git/config"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("docs"), withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: folder.appendingPathComponent("docs/index.html"))
        try await Self.withLiveApp(configure: { $0.server.publicFolder = folder.path }) { port, _ in
            try await test(port, folder)
        }
    }

    @Test func rangesAreServedByteForByte() async throws {
        try await Self.withPublicFolder { port, _ in
            let whole = try await LiveServer.get(port, "/data.bin")
            #expect(whole.status == 200 && whole.body.count == 3000 && whole.header("accept-ranges") == "bytes")
            let cases: [(String, Int, String?, ClosedRange<Int>?)] = [
                ("bytes=-1", 206, "bytes 2999-2999/3000", 2999...2999),
                ("bytes=0-9", 206, "bytes 0-9/3000", 0...9),
                ("bytes=2990-5000", 206, "bytes 2990-2999/3000", 2990...2999),
                ("bytes=-5000", 206, "bytes 0-2999/3000", 0...2999),
                ("bytes=3000-", 416, "bytes */3000", nil),
                ("bytes=-0", 416, "bytes */3000", nil),
                ("items=0-5", 200, nil, 0...2999),
                ("bytes=0-1,5-6", 200, nil, 0...2999),
            ]
            for (range, status, contentRange, bytes) in cases {
                let answer = try await LiveServer.get(port, "/data.bin", "Range: \(range)")
                #expect(answer.status == status, "\(range)")
                #expect(answer.header("content-range") == contentRange, "\(range)")
                if let bytes {
                    #expect(answer.body == Array(whole.body[bytes]), "\(range)")
                    #expect(answer.header("content-length") == String(bytes.count), "\(range)")
                } else {
                    #expect(answer.header("content-type")?.hasPrefix("application/json") == true, "\(range): a JSON error")
                }
            }
            // If-Range: the current validator gets the part, an old one the whole file.
            let etag = try #require(whole.header("etag"))
            #expect(!etag.hasPrefix("W/"), "a strong validator, usable in If-Range")
            let lastModified = try #require(whole.header("last-modified"))
            #expect(try await LiveServer.get(port, "/data.bin", "Range: bytes=0-9", "If-Range: \(etag)").status == 206)
            #expect(try await LiveServer.get(port, "/data.bin", "Range: bytes=0-9", "If-Range: \(lastModified)").status == 206)
            let stale = try await LiveServer.get(port, "/data.bin", "Range: bytes=0-9", "If-Range: \"0-0\"")
            #expect(stale.status == 200 && stale.body.count == 3000)
            #expect(try await LiveServer.get(port, "/data.bin", "If-None-Match: \(etag)").status == 304)
            // HEAD ignores Range: the headers of the whole file.
            let head = try await LiveServer.get(port, "/data.bin", method: "HEAD", "Range: bytes=0-9")
            #expect(head.status == 200 && head.header("content-length") == "3000" && head.body.isEmpty)
        }
    }

    @Test func hiddenFilesAndFoldersAreNotServed() async throws {
        try await Self.withPublicFolder { port, _ in
            #expect(try await LiveServer.get(port, "/").status == 200)
            for target in ["/.env", "/%2Eenv", "/%2eenv", "/.git/config", "/.git", "/docs", "/docs/", "/docs/index.html/.."] {
                let answer = try await LiveServer.get(port, target)
                #expect(answer.status == 404, "\(target)")
                #expect(answer.header("location") == nil, "\(target)")
                #expect(!String(decoding: answer.body, as: UTF8.self).contains("SECRET"), "\(target)")
            }
            #expect(try await LiveServer.get(port, "/docs/index.html").status == 200, "a file in a folder is served")
        }
    }
}

/// The edges of HTTP/1.1 framing, answered from the head alone.
extension LiveServerTests {
    /// Sends `text` as it is, and reads everything until the server closes the connection (bounded by the raw client's
    /// 20-second read timeout, so a server that waits for a body that never comes fails the test).
    static func rawExchange(_ port: Int, _ text: String) throws -> (status: Int, text: String, seconds: Double) {
        let socket = try RawHTTP.connect(port: port)
        defer { RawHTTP.close(socket) }
        let started = ContinuousClock.now
        try RawHTTP.send(socket, text)
        let answer = String(decoding: try RawHTTP.readToEnd(socket), as: UTF8.self)
        let status = answer.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, answer, (ContinuousClock.now - started) / .seconds(1))
    }

    @Test func framingIsCheckedAndBodiesAreNotAwaited() async throws {
        try await Self.withLiveApp(configure: { $0.server.requestHeadTimeout = .seconds(30) }) { port, _ in
            let cases: [(String, String, Int)] = [
                ("no Host", "GET /health HTTP/1.1\r\n\r\n", 400),
                ("two Host fields", "GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
                ("a Host with a space", "GET /health HTTP/1.1\r\nHost: a b\r\n\r\n", 400),
                ("Transfer-Encoding on HTTP/1.0", "GET /health HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
                ("a body declared over the limit", "POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n", 413),
                (
                    "the same expecting 100-continue",
                    "POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\nExpect: 100-continue\r\n\r\n", 413
                ),
                ("an unknown expectation", "GET /health HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n", 417),
                (
                    "100-continue on a route that takes no body",
                    "GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n", 200
                ),
            ]
            for (name, request, status) in cases {
                // Each is answered at once and the connection closed: the raw read would time out after 20 s otherwise.
                let answer = try Self.rawExchange(port, request)
                #expect(answer.status == status, "\(name): \(answer.text.prefix(80))")
                #expect(answer.seconds < 10, "\(name): answered from the head, without waiting for a body")
                #expect(!answer.text.contains("100 Continue"), "\(name)")
                if status != 200 { #expect(answer.text.contains("application/json") && answer.text.contains("\"error\""), "\(name)") }
                #expect(answer.text.lowercased().contains("connection: close"), "\(name)")
            }
            // An empty Host (a target without authority) and HTTP/1.0 without Host are fine.
            #expect(try Self.rawExchange(port, "GET /health HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n").status == 200)
            #expect(try Self.rawExchange(port, "GET /health HTTP/1.0\r\n\r\n").status == 200)
            // A refusal after a pipelined request: the first is answered, then the refusal, then the connection closes.
            let pipelined = try Self.rawExchange(port, "GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\n\r\n")
            #expect(pipelined.text.hasPrefix("HTTP/1.1 200 OK"), "\(pipelined.text)")
            #expect(pipelined.text.components(separatedBy: "HTTP/1.1 400 Bad Request").count == 2, "\(pipelined.text)")
        }
    }
}
