import Foundation
import Testing

@testable import BackdropKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `make test-backdropkit` (Tests/backdropkit/run.py) hands the tests: the live services and the OpenAPI
/// document as JSON. Without them the tests that need them are skipped, and run.py fails a run that skips any.
enum Environment {
    static func url(_ name: String) -> URL? {
        ProcessInfo.processInfo.environment[name].flatMap(URL.init(string:))
    }

    /// A Backdrop pointed at the stand-in Flickr.
    static var backdrop: URL? { self.url("BACKDROPKIT_SERVER") }
    /// A Backdrop whose render queue holds one job, to be overloaded.
    static var busyBackdrop: URL? { self.url("BACKDROPKIT_BUSY_SERVER") }
    /// Where to leave files for run.py to check (the previews, decoded there by Pillow).
    static var output: URL? { ProcessInfo.processInfo.environment["BACKDROPKIT_OUTPUT"].map { URL(fileURLWithPath: $0) } }
    /// Public/openapi.yaml as JSON.
    static var openAPI: String? { ProcessInfo.processInfo.environment["BACKDROPKIT_OPENAPI_JSON"] }
}

/// A `/background.json` answer, for tests that need one but no server.
enum Fixture {
    static func background(
        secondsLeft: Int,
        receivedAt: Date,
        cell: String = "u09tv",
        legibility: String? = nil,
        owner: String = "Peter Nerlich"
    ) throws -> Background {
        let json = """
            {"source": "stock", "photoId": "stock-005", "title": "greentock", "owner": "\(owner)",
             "photoPage": "https://gitlab.com/ubports/development/core/lomiri-wallpapers", "photoNote": "greentock.jpg, 2018",
             "license": {"name": "CC BY-SA 4.0", "url": "https://creativecommons.org/licenses/by-sa/4.0/"},
             "credit": "\\"greentock\\" by Peter Nerlich, CC BY-SA 4.0", "cell": "\(cell)",
             "window": {"expires": "2026-11-23T22:00:00Z", "secondsLeft": \(secondsLeft)},
             "modified": "The image served is a modified copy.",\(legibility.map { "\"legibility\": \($0)," } ?? "")
             "images": {"format": "webp", "sharp": "/background?cell=\(cell)&blur=0&format=webp",
               "blurred": "/background?cell=\(cell)&blur=1&format=webp",
               "blurredPreview": {"uri": "data:image/webp;base64,UklGRg==", "width": 19, "height": 41},
               "thumbHash": "cAgCGwCXj3aJeZh4jECsBko=", "blurHash": "TPNAq@?Vt2tWRrRmxlxnoetARoj=", "color": "#c9c8bb",
               "formats": {
                 "png": {"sharp": "/background?cell=\(cell)&blur=0&format=png", "blurred": "/background?cell=\(cell)&blur=1&format=png"},
                 "jpeg": {"sharp": "/background?cell=\(cell)&blur=0&format=jpeg", "blurred": "/background?cell=\(cell)&blur=1&format=jpeg"},
                 "webp": {"sharp": "/background?cell=\(cell)&blur=0&format=webp", "blurred": "/background?cell=\(cell)&blur=1&format=webp"},
                 "avif": {"sharp": "/background?cell=\(cell)&blur=0&format=avif", "blurred": "/background?cell=\(cell)&blur=1&format=avif"}}}}
            """
        return try Background.decode(Data(json.utf8), baseURL: URL(string: "https://backdrop.example/prefix/"), receivedAt: receivedAt)
    }
}

/// Width and height as an image file's header states them: PNG, and WebP (lossless, lossy or extended).
enum ImageHeader {
    static func size(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data)
        func little(_ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        if bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4e, 0x47]) {
            return ((16..<20).reduce(0) { $0 << 8 | Int(bytes[$1]) }, (20..<24).reduce(0) { $0 << 8 | Int(bytes[$1]) })
        }
        guard bytes.count >= 30, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) else { return nil }
        switch String(decoding: bytes[12..<16], as: UTF8.self) {
        case "VP8L" where bytes[20] == 0x2f:
            let bits = little(21, 4)
            return ((bits & 0x3fff) + 1, (bits >> 14 & 0x3fff) + 1)
        case "VP8X":
            return (little(24, 3) + 1, little(27, 3) + 1)
        case "VP8 ":
            return (little(26, 2) & 0x3fff, little(28, 2) & 0x3fff)
        default:
            return nil
        }
    }

    /// The format the file's first bytes say.
    static func format(_ data: Data) -> ImageFormat? {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0x89, 0x50, 0x4e, 0x47]) { return .png }
        if bytes.starts(with: [0xff, 0xd8, 0xff]) { return .jpeg }
        if bytes.count == 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return .webp }
        if bytes.count == 12, Array(bytes[4..<12]) == Array("ftypavif".utf8) { return .avif }
        return nil
    }
}

/// SplitMix64: a test's random numbers from a seed it prints, so that a failure can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { self.state = seed }
    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A listening TCP socket on 127.0.0.1 and its port.
func listeningSocket() throws -> (descriptor: Int32, port: Int) {
    #if canImport(Glibc)
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(descriptor, address, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, address, &length) == 0
        }
    }
    guard descriptor >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

/// A TCP port that takes connections (the kernel completes them) and never answers: a hung server.
final class SilentServer: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        (self.descriptor, self.port) = try listeningSocket()
    }

    deinit { close(self.descriptor) }
}

/// A server that answers its first connection's request with a 200 promising a megabyte, then sends one byte of it
/// every 100 ms: a connection never idle and never done, which no idle timeout ends. Its thread stops after 30 s, or
/// when the client goes.
final class TricklingServer: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        (self.descriptor, self.port) = try listeningSocket()
        let listener = self.descriptor
        Thread.detachNewThread {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var request = [UInt8](repeating: 0, count: 65536)
            _ = recv(connection, &request, request.count, 0)
            let head = Array("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 1048576\r\n\r\n".utf8)
            guard send(connection, head, head.count, Int32(MSG_NOSIGNAL)) == head.count else { return }
            for _ in 0..<300 {
                guard send(connection, [0x89], 1, Int32(MSG_NOSIGNAL)) == 1 else { return }
                usleep(100_000)  // the trickle's pace, not synchronisation
            }
        }
    }

    deinit { close(self.descriptor) }
}
