import Foundation
import Testing

@testable import Backdrop

/// The public folder as a file server: byte ranges as RFC 9110 reads them, no hidden files, folders not served.
@Suite("Static files")
struct StaticFileTests {
    /// RFC 9110 section 14, case by case, for a file of 100 bytes (and one of 0).
    @Test("Range headers", arguments: [
        ("bytes=0-9", 100, ByteRange.part(0...9)),
        ("bytes=90-", 100, .part(90...99)),
        ("bytes=-1", 100, .part(99...99)),          // the last byte, not the first two
        ("bytes=-10", 100, .part(90...99)),
        ("bytes=-1000", 100, .part(0...99)),        // a suffix longer than the file: all of it
        ("bytes=50-1000", 100, .part(50...99)),     // an end past the file is clamped
        ("bytes=99-99", 100, .part(99...99)),
        ("bytes=100-", 100, .unsatisfiable),        // the first byte past the end
        ("bytes=100-200", 100, .unsatisfiable),
        ("bytes=99999999999999999999-", 100, .unsatisfiable),
        ("bytes=-0", 100, .unsatisfiable),
        ("bytes=0-0", 0, .unsatisfiable),           // nothing of an empty file can be sent
        ("bytes=-5", 0, .unsatisfiable),
        ("BYTES=0-1", 100, .part(0...1)),           // the unit is case-insensitive
        (" bytes = 0-1 ", 100, .part(0...1)),
        ("items=0-5", 100, .whole),                 // an unknown unit is ignored
        ("bytes=5-2", 100, .whole),                 // an invalid range is ignored
        ("bytes=a-b", 100, .whole),
        ("bytes=-", 100, .whole),
        ("bytes=0-1,5-6", 100, .whole),             // several ranges: the whole file (a multipart answer is optional)
        ("bytes=+1-2", 100, .whole),
        ("0-5", 100, .whole),
    ])
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
            let whole = try Self.get(port, "/data.bin")
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
                let answer = try Self.get(port, "/data.bin", "Range: \(range)")
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
            #expect(try Self.get(port, "/data.bin", "Range: bytes=0-9", "If-Range: \(etag)").status == 206)
            #expect(try Self.get(port, "/data.bin", "Range: bytes=0-9", "If-Range: \(lastModified)").status == 206)
            let stale = try Self.get(port, "/data.bin", "Range: bytes=0-9", "If-Range: \"0-0\"")
            #expect(stale.status == 200 && stale.body.count == 3000)
            #expect(try Self.get(port, "/data.bin", "If-None-Match: \(etag)").status == 304)
            // HEAD ignores Range: the headers of the whole file.
            let head = try Self.get(port, "/data.bin", method: "HEAD", "Range: bytes=0-9")
            #expect(head.status == 200 && head.header("content-length") == "3000" && head.body.isEmpty)
        }
    }

    @Test func hiddenFilesAndFoldersAreNotServed() async throws {
        try await Self.withPublicFolder { port, _ in
            #expect(try Self.get(port, "/").status == 200)
            for target in ["/.env", "/%2Eenv", "/%2eenv", "/.git/config", "/.git", "/docs", "/docs/", "/docs/index.html/.."] {
                let answer = try Self.get(port, target)
                #expect(answer.status == 404, "\(target)")
                #expect(answer.header("location") == nil, "\(target)")
                #expect(!String(decoding: answer.body, as: UTF8.self).contains("SECRET"), "\(target)")
            }
            #expect(try Self.get(port, "/docs/index.html").status == 200, "a file in a folder is served")
        }
    }
}
