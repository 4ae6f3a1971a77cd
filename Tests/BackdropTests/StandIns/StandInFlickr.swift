import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import Backdrop

/// A stand-in for Flickr on 127.0.0.1: `flickr.photos.search` in Flickr's real JSON shapes (quirks included) at
/// `/services/rest/`, and an image host at `/img/NAME` whose NAME picks the behaviour (good photo, truncated,
/// huge header, PNG, HTML, oversized, redirects, no answer). It records every call.
final class StandInFlickr: Sendable {
    /// What one search call answers.
    enum SearchAnswer: Sendable {
        case json(String)
        case status(Int, String)
        case noAnswer
        /// The head at once, then the body one byte every 100 ms (for at most a minute).
        case trickle(String)
    }

    struct Call: Sendable {
        let path: String
        let query: [String: String]
    }

    let port: Int
    private let calls = Mutex<[Call]>([])
    /// Ends when the stand-in stops: what "never answers" waits for.
    let (released, release) = AsyncStream<Void>.makeStream()
    private let answers: Mutex<[SearchAnswer]>

    private init(port: Int) {
        self.port = port
        self.answers = Mutex([])
    }

    var endpoint: String { "http://localhost:\(self.port)/services/rest/" }
    var searches: [Call] { self.calls.withLock { $0.filter { $0.path == "/services/rest/" } } }
    var downloads: [Call] { self.calls.withLock { $0.filter { $0.path.hasPrefix("/img/") } } }
    /// The thumbnails fetched for looks (`url_t`).
    var looks: [Call] { self.calls.withLock { $0.filter { $0.path.hasPrefix("/thumb/") } } }

    func imageURL(_ name: String) -> String { "http://localhost:\(self.port)/img/\(name)" }

    /// Runs a stand-in around `body`; its successive searches give `answers` (built once its port is known; the last
    /// one repeats).
    static func run(
        _ answers: @escaping @Sendable (StandInFlickr) -> [SearchAnswer],
        _ body: @Sendable (StandInFlickr) async throws -> Void
    ) async throws {
        let box = Mutex<StandInFlickr?>(nil)
        let photo = try Fixtures.bytes("flickr-photo.jpg")
        let router = Router()
        router.get("services/rest/") { request, _ -> Response in
            guard let flickr = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            flickr.record(request)
            switch flickr.nextAnswer() {
            case .json(let text):
                return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
            case .status(let code, let text):
                return Response(status: .init(code: code), headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: text)))
            case .noAnswer:
                for await _ in flickr.released {}  // never answers while the test runs
                return Response(status: .ok)
            case .trickle(let text):
                return Response(status: .ok, headers: [.contentType: "application/json"], body: Self.trickling(Array(text.utf8)))
            }
        }
        router.get("thumb/:name") { request, context -> Response in
            guard let flickr = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            flickr.record(request)
            let name = try context.parameters.require("name")
            return try await StandInCommons.look(String(name.prefix { $0 != "." }), released: flickr.released)
        }
        router.get("img/:name") { request, context -> Response in
            guard let flickr = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            flickr.record(request)
            return try await flickr.image(
                named: context.parameters.require("name"),
                size: request.uri.queryParameters["size"].map(String.init),
                photo: photo
            )
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let flickr = StandInFlickr(port: try #require(client.port))
            let queued = answers(flickr)
            flickr.answers.withLock { $0 = queued }
            box.withLock { $0 = flickr }
            defer { flickr.release.finish() }
            try await body(flickr)
        }
    }

    private func record(_ request: Request) {
        var query = [String: String]()
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        self.calls.withLock { $0.append(Call(path: request.uri.path, query: query)) }
    }

    private func nextAnswer() -> SearchAnswer {
        self.answers.withLock { answers in
            answers.count > 1 ? answers.removeFirst() : answers.first ?? .json(Self.searchJSON([]))
        }
    }

    /// What `sized.jpg` serves for each size label: an image of exactly the size the search declared for it, in a
    /// colour of its own, so that a render shows which size arrived and was used.
    static let sizedLabels: [String: (width: Int, height: Int, colour: (UInt8, UInt8, UInt8))] = [
        "z": (427, 640, (200, 30, 30)), "c": (534, 800, (30, 200, 30)), "l": (683, 1024, (30, 30, 200)), "h": (1067, 1600, (230, 230, 230)),
    ]

    /// `colour` in 16-px stripes 15 levels either side of it, solid in a 128-px square at the centre: a picture the
    /// quality gate passes (a solid one is flat), whose centre shows the colour.
    static func striped(_ width: Int, _ height: Int, _ colour: (UInt8, UInt8, UInt8)) -> RGBImage {
        RGBImage(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let centre = abs(x - width / 2) < 64 && abs(y - height / 2) < 64
                    let shift = centre ? 0 : (x / 16) % 2 == 0 ? 15 : -15
                    let base = (y * width + x) * 3
                    out[base] = UInt8(clamping: Int(colour.0) + shift)
                    out[base + 1] = UInt8(clamping: Int(colour.1) + shift)
                    out[base + 2] = UInt8(clamping: Int(colour.2) + shift)
                }
            }
        }
    }

    private func image(named name: String, size: String?, photo: [UInt8]) async throws -> Response {
        try await Self.image(named: name, size: size, photo: photo, base: "http://127.0.0.1:\(self.port)/img", released: self.released)
    }

    /// What an image host serves for `name`: the photo, or one of the faults a test names (`truncated.jpg`,
    /// `huge.jpg`, `image.png`, `page.html`, `oversized.jpg`, redirects, `no-answer.jpg`, `server-error.jpg`,
    /// `trickle.jpg`, `blurred.jpg` that the quality gate turns down, `throttled.jpg` a 429 asking 120 s); `base` is the host's folder of images on
    /// loopback (redirects point into it), `released` ends the hang.
    static func image(named name: String, size: String?, photo: [UInt8], base: String, released: AsyncStream<Void>) async throws -> Response {
        let jpeg: HTTPFields = [.contentType: "image/jpeg"]
        switch name {
        case "sized.jpg":
            guard let label = size.flatMap({ Self.sizedLabels[$0] }) else { return Response(status: .notFound) }
            let bytes = try JPEGEncoder.encode(Self.striped(label.width, label.height, label.colour), quality: 95)
            return Response(status: .ok, headers: jpeg, body: .init(byteBuffer: bytes))
        case let name where name.hasPrefix("photo"):
            return Response(status: .ok, headers: jpeg, body: .init(byteBuffer: ByteBuffer(bytes: photo)))
        case "astronaut.jpg":  // a portrait: scikit-image's astronaut (NASA, public domain)
            return Response(status: .ok, headers: jpeg, body: .init(byteBuffer: ByteBuffer(bytes: try Fixtures.bytes(name))))
        case let name where name.hasPrefix("night-"):  // the night photographs of the fixtures (make_night.py)
            return Response(status: .ok, headers: jpeg, body: .init(byteBuffer: ByteBuffer(bytes: try Fixtures.bytes(name))))
        case "blurred.jpg":  // the fixture photo under a 24-px Gaussian blur: the quality gate turns it down
            return Response(status: .ok, headers: jpeg, body: .init(byteBuffer: ByteBuffer(bytes: try Fixtures.bytes("blurred-photo.jpg"))))
        case "truncated.jpg":
            return Response(status: .ok, headers: jpeg, body: .init(byteBuffer: ByteBuffer(bytes: photo.prefix(photo.count / 2))))
        case "huge.jpg":
            return Response(status: .ok, headers: jpeg, body: .init(byteBuffer: ByteBuffer(bytes: Self.declaringHugeSize(photo))))
        case "image.png":
            let png = try PNGEncoder.encode(solid(64, 64, (1, 2, 3)))
            return Response(status: .ok, headers: [.contentType: "image/png"], body: .init(byteBuffer: png))
        case "page.html":
            return Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: "<html>Not found</html>")))
        case "oversized.jpg":
            // A JPEG start followed by 3 MB, over the 1 MB cap the tests configure; sent without Content-Length.
            let chunks = [ByteBuffer(bytes: photo.prefix(600))] + Array(repeating: ByteBuffer(repeating: 0x55, count: 64 << 10), count: 48)
            return Response(status: .ok, headers: jpeg, body: .init(contentsOf: chunks))
        case "redirect-loopback.jpg":
            return Response(status: .found, headers: [.location: "\(base)/photo-after-redirect.jpg"])
        case "redirect-elsewhere.jpg":
            return Response(status: .found, headers: [.location: "http://example.com/img/photo.jpg"])
        case "redirect-allowed.jpg":
            return Response(status: .movedPermanently, headers: [.location: "\(URL(string: base)?.path ?? "")/photo-after-redirect.jpg"])
        case "redirect-loop.jpg":
            return Response(status: .found, headers: [.location: "\(URL(string: base)?.path ?? "")/redirect-loop.jpg"])
        case "no-answer.jpg":
            for await _ in released {}
            return Response(status: .ok, headers: jpeg, body: .init(byteBuffer: ByteBuffer(bytes: photo)))
        case "server-error.jpg":
            return Response(status: .internalServerError)
        case "throttled.jpg":  // a media host asking to wait, as Wikimedia's do past their limits
            return Response(status: .tooManyRequests, headers: [.retryAfter: "120"])
        case "trickle.jpg":
            return Response(status: .ok, headers: jpeg, body: Self.trickling(photo))
        default:
            return Response(status: .notFound)
        }
    }

    /// A body sent one byte every 100 ms, at most 600 of them: a slow or hostile upstream, as the server behaves.
    static func trickling(_ bytes: [UInt8]) -> ResponseBody {
        ResponseBody { writer in
            for byte in bytes.prefix(600) {
                try await writer.write(ByteBuffer(bytes: [byte]))
                try await Task.sleep(for: .milliseconds(100))
            }
            try await writer.finish(nil)
        }
    }

    /// The fixture with its frame header rewritten to claim 30000x30000 pixels.
    static func declaringHugeSize(_ jpeg: [UInt8]) -> [UInt8] {
        var bytes = jpeg
        if let sof = (0..<(bytes.count - 1)).first(where: { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2) }) {
            bytes[sof + 5] = UInt8(30000 >> 8)
            bytes[sof + 6] = UInt8(30000 & 0xFF)
            bytes[sof + 7] = UInt8(30000 >> 8)
            bytes[sof + 8] = UInt8(30000 & 0xFF)
        }
        return bytes
    }

    // MARK: - Flickr's JSON

    /// One result as Flickr writes it, with the quirks real answers have.
    struct Result: Sendable {
        var id = "53011111111"
        var owner = "12345678@N00"
        var ownerName: String? = "Ana Photographer"
        var pathAlias: String? = nil
        var title = "Harbour at dusk"
        var license = 4
        /// Size label → (image URL, width, height); quirks: some sizes missing, numbers as strings.
        var sizes: [(String, String, Int, Int)] = []
        var numbersAsStrings = false
        /// The ranking's extras as raw JSON values, in whichever odd form a test wants (`"datetaken": "\"2026-…\""`,
        /// `"context": "\"1\""`, `"accuracy": "16"`).
        var extras: [(String, String)] = []
    }

    func result(
        id: String = "53011111111",
        image: String = "photo.jpg",
        title: String = "Harbour at dusk",
        ownerName: String? = "Ana Photographer",
        pathAlias: String? = nil,
        license: Int = 4,
        look: String? = nil
    ) -> Result {
        var result = Result(id: id, ownerName: ownerName, pathAlias: pathAlias, title: title, license: license)
        result.sizes = [
            ("z", self.imageURL(image) + "?size=z", 427, 640),
            ("c", self.imageURL(image) + "?size=c", 534, 800),
            ("l", self.imageURL(image) + "?size=l", 683, 1024),
            ("h", self.imageURL(image) + "?size=h", 1067, 1600),
            // The thumbnail (``StandInCommons/look(_:released:)``): a look of its own unless `look` names one.
            ("t", "http://localhost:\(self.port)/thumb/\(look ?? "own")~\(id).jpg", 67, 100),
        ]
        return result
    }

    static func searchJSON(_ results: [Result], totalAsString: Bool = true) -> String {
        let photos = results.map { r -> String in
            func number(_ n: Int) -> String { r.numbersAsStrings ? "\"\(n)\"" : "\(n)" }
            var fields = [
                "\"id\":\"\(r.id)\"", "\"owner\":\"\(r.owner)\"", "\"secret\":\"a1b2c3d4e5\"", "\"server\":\"65535\"", "\"farm\":66",
                "\"title\":\(Self.quoted(r.title))", "\"ispublic\":1", "\"isfriend\":0", "\"isfamily\":0",
                "\"license\":\"\(r.license)\"",  // Flickr sends the licence id as a string
            ]
            if let name = r.ownerName { fields.append("\"ownername\":\(Self.quoted(name))") }
            fields.append("\"pathalias\":" + (r.pathAlias.map(Self.quoted) ?? "null"))
            for (label, url, width, height) in r.sizes {
                fields += [
                    "\"url_\(label)\":\(Self.quoted(url))",  // JSONEncoder writes "\/" as Flickr does
                    "\"height_\(label)\":\(number(height))", "\"width_\(label)\":\(number(width))",
                ]
            }
            for (name, value) in r.extras { fields.append("\"\(name)\":\(value)") }
            return "{" + fields.joined(separator: ",") + "}"
        }
        let total = totalAsString ? "\"\(results.count)\"" : "\(results.count)"
        return "{\"photos\":{\"page\":1,\"pages\":1,\"perpage\":250,\"total\":\(total),\"photo\":[\(photos.joined(separator: ","))]},\"stat\":\"ok\"}"
    }

    static func failJSON(code: Int, message: String) -> String {
        "{\"stat\":\"fail\",\"code\":\(code),\"message\":\(Self.quoted(message))}"
    }

    private static func quoted(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}
