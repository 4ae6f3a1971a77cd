import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import Backdrop

@Suite("HTTP API")
struct HTTPTests {
    @Test func overloadShedsWithA503AndOneSummaryLineNotOneLineEach() async throws {
        let records = LogRecords()
        let logger = records.logger
        var settings = TestApp.settings(logLevel: .info)
        settings.render.maxPending = 1
        let served = Mutex(0)
        try await TestApp.run(settings, logger: logger) { client in
            let answers = try await withThrowingTaskGroup(of: TestApp.Answer.self) { group in
                // Distinct sizes: no two share a render, so they queue at the gate together.
                for index in 0..<16 { group.addTask { try await TestApp.get(client, "/background?lat=1&lon=2&width=\(300 + index)") } }
                return try await group.reduce(into: [TestApp.Answer]()) { $0.append($1) }
            }
            let shed = answers.filter { $0.status == .serviceUnavailable }
            #expect(!shed.isEmpty && answers.contains { $0.status == .ok })
            #expect(shed.allSatisfy { ($0.headers[.retryAfter].flatMap { Int($0) } ?? 0) >= 1 && $0.json["error"] != nil })
            #expect(answers.allSatisfy { $0.status == .ok || $0.status == .serviceUnavailable })
            served.withLock { $0 = answers.count - shed.count }
        }
        let requestLines = records.all.filter { $0.message == "request" }
        #expect(requestLines.count == served.withLock { $0 }, "one line per answer that was not shed")
        #expect(!requestLines.contains { $0.metadata["status"] == "503" }, "a 503 is not logged one line each")
        #expect(records.all.filter { $0.message.contains("overloaded") }.count <= 1)
    }

    @Test func everyAnswerSaysNosniff() async throws {
        try await TestApp.withApp { client in
            for (uri, method) in [
                ("/background?lat=1&lon=2&width=20&height=20", HTTPRequest.Method.get), ("/background?lat=91", .get),
                ("/nothing", .get), ("/health", .post), ("/", .get), ("/openapi.yaml", .head), ("/metrics", .get),
            ] {
                let answer = try await TestApp.get(client, uri, method: method)
                #expect(answer.headers[.xContentTypeOptions] == "nosniff", "\(method) \(uri): \(answer.status)")
            }
        }
    }

    @Test func backgroundIsAPNGOfTheDefaultSizeWithHeaders() async throws {
        try await TestApp.withApp { client in
            let answer = try await TestApp.get(client, "/background?lat=42.6&lon=-5.6&blur=0.5")
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType] == "image/png")
            #expect(answer.headers[.contentLength] == String(answer.body.count))
            #expect(answer.headers[.cacheControl] == "public, max-age=700, stale-while-revalidate=900")
            #expect(answer.headers[BackdropHeaders.source] == "stock")
            #expect(answer.headers[BackdropHeaders.cell] == "ezs42")
            let library = try StockPhotoLibrary.load(folder: Fixtures.stockFolder)
            let entry = try #require(library.entries.first { $0.photo.id == answer.photoID })
            #expect(answer.headers[BackdropHeaders.author] == HeaderText.encode(entry.photo.attribution.author))
            #expect(answer.headers[BackdropHeaders.license] == entry.photo.attribution.license)
            #expect(answer.headers[BackdropHeaders.credit]?.contains("modified") == true)
            let image = try PNGDecoder.decode(answer.body)
            #expect(image.width == 640 && image.height == 1136)
        }
    }

    @Test("output is exactly the asked size", arguments: [(1, 1), (2048, 1953), (2048, 1), (1, 2048), (375, 812), (1000, 333)])
    func exactSize(_ width: Int, _ height: Int) async throws {
        try await TestApp.withApp { client in
            let answer = try await TestApp.get(client, "/background?lat=1&lon=2&width=\(width)&height=\(height)&blur=0.3")
            #expect(answer.status == .ok)
            let image = try PNGDecoder.decode(answer.body)
            #expect(image.width == width && image.height == height)
        }
    }

    @Test func oneCellAndWindowKeepsOnePhotoWhateverTheBlurSizeOrStyle() async throws {
        try await TestApp.withApp { client in
            var ids = Set<String>()
            var bodies = [[UInt8]]()
            for query in ["blur=0", "blur=1", "blur=0.37", "blur=1&style=dark", "width=320&height=568", "style=none&blur=0.5"] {
                let answer = try await TestApp.get(client, "/background?lat=48.8566&lon=2.3522&\(query)")
                #expect(answer.status == .ok)
                ids.insert(try #require(answer.photoID))
                bodies.append(answer.body)
            }
            #expect(ids.count == 1)
            #expect(bodies[0] != bodies[1])
            // Another point in the same cell, same photo.
            #expect(try await TestApp.get(client, "/background?lat=48.857&lon=2.351&blur=0").photoID == ids.first)
            // blur is quantised to 0.01.
            let a = try await TestApp.get(client, "/background?lat=48.8566&lon=2.3522&blur=0.371&width=50&height=50")
            let b = try await TestApp.get(client, "/background?lat=48.8566&lon=2.3522&blur=0.369&width=50&height=50")
            #expect(a.body == b.body)
        }
    }

    @Test func photosVaryAcrossWindowsAndCells() async throws {
        let found = Mutex<[String?]>([])
        for offset in 0..<3 {
            try await TestApp.withApp(at: TestApp.epoch.addingTimeInterval(Double(offset) * 900)) { client in
                let id = try await TestApp.get(client, "/background?lat=42.6&lon=-5.6&width=20&height=20").photoID
                found.withLock { $0.append(id) }
            }
        }
        let byWindow = found.withLock { $0 }
        #expect(byWindow[0] != byWindow[1] && byWindow[1] != byWindow[2])
        try await TestApp.withApp { client in
            var ids = Set<String>()
            for lat in stride(from: -60, through: 60, by: 10) {
                ids.insert(try #require(try await TestApp.get(client, "/background?lat=\(lat)&lon=10&width=20&height=20").photoID))
            }
            #expect(ids.count >= 4)
        }
    }

    @Test func noLocationServesAStockPhoto() async throws {
        try await TestApp.withApp { client in
            let answer = try await TestApp.get(client, "/background?width=64&height=64")
            #expect(answer.status == .ok)
            #expect(answer.headers[BackdropHeaders.cell] == "none")
            #expect(answer.headers[BackdropHeaders.source] == "stock")
            #expect(try PNGDecoder.decode(answer.body).width == 64)
        }
    }

    @Test func headAnswersHeadersWithoutABody() async throws {
        try await TestApp.withApp { client in
            let get = try await TestApp.get(client, "/background?lat=10&lon=10&width=100&height=100")
            let head = try await TestApp.get(client, "/background?lat=10&lon=10&width=100&height=100", method: .head)
            #expect(head.status == .ok)
            #expect(head.body.isEmpty)
            #expect(head.headers[.contentLength] == String(get.body.count))
            #expect(head.headers[BackdropHeaders.photoID] == get.photoID)
            #expect(try await TestApp.get(client, "/health", method: .head).status == .ok)
        }
    }

    @Test(
        "invalid queries are 400s naming the parameter",
        arguments: [
            ("lat=abc&lon=1", "lat"), ("lat=1&lon=abc", "lon"), ("lat=nan&lon=1", "lat"), ("lat=inf&lon=1", "lat"),
            ("lat=1e2&lon=1", "lat"), ("lat=1e999&lon=1", "lat"), ("lat=1e&lon=1", "lat"), ("lat=e5&lon=1", "lat"), ("lat=0x10&lon=1", "lat"),
            ("lat=&lon=1", "lat"), ("lat=90.0001&lon=1", "lat"),
            ("lat=-91&lon=1", "lat"), ("lat=1&lon=180.5", "lon"), ("lat=1&lon=-181", "lon"), ("lat=1", "lon"), ("lon=1", "lat"),
            ("lat=1&lat=2&lon=1", "lat"), ("blur=1.01", "blur"), ("blur=-0.1", "blur"), ("blur=half", "blur"), ("blur=0.5&blur=0.6", "blur"),
            ("width=0", "width"), ("width=2049", "width"), ("width=12.5", "width"), ("width=-5", "width"), ("height=99999999999", "height"),
            ("width=2048&height=2049", "height"), ("width=2048&height=2048&blur=1", "width"), ("width=2048&height=2047", "width"),
            ("style=blurry", "style"), ("style=", "style"), ("zoom=2", "zoom"), ("lat=1&lon=1&callback=x", "callback"),
            ("lat=%ZZ&lon=1", "lat"), ("%ZZ=1", "%ZZ"), ("lat=%FF&lon=1", "lat"), ("lat=1%&lon=1", "lat"), ("l%61t=1&lon=2", "l%61t"),
            ("cel%6C=u09tv", "cel%6C"), ("la+t=1&lon=2", "la+t"), ("lat=1&l%6Fn=2", "l%6Fn"),
        ]
    )
    func invalidQueries(_ query: String, _ parameter: String) async throws {
        try await TestApp.withApp { client in
            let answer = try await TestApp.get(client, "/background?\(query)")
            #expect(answer.status == .badRequest, "\(query)")
            #expect(answer.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(answer.json["parameter"] == parameter, "\(query)")
            #expect(!(answer.json["error"] ?? "").isEmpty)
        }
    }

    @Test func edgesOfTheValidRangesAreAccepted() async throws {
        // Each edge is answered for the place and blur it names: the cell (X-Backdrop-Cell, "none" without a place) and
        // the blur in the canonical cell URL, computed here by hand.
        let cases: [(query: String, cell: String, blur: String)] = [
            ("lat=90&lon=180", "zzzzz", "blur=1&"), ("lat=-90&lon=-180", "00000", "blur=1&"), ("lat=%2B1.5&lon=.5", "s022e", "blur=1&"),
            ("lat=0&lon=-0.", "s0000", "blur=1&"), ("blur=0&width=2048&height=1953", "none", "blur=0&"),
            ("width=2000&height=2000", "none", "blur=1&"),
            ("blur=1.00&width=1&height=1", "none", "blur=1&"), ("lat=1e1&lon=-1.5E-3&blur=5e-1", "eczbz", "blur=0.5&"),
            ("style=extralight&width=8&height=8", "none", "blur=1&"), ("lat=1&lon=2&", "s01mt", "blur=1&"), ("", "none", "blur=1&"),
            ("lat=1&lon=2&blur=0.004", "s01mt", "blur=0&"), ("lat=1&lon=2&blur=0.996", "s01mt", "blur=1&"),
            ("lat=1&lon=2&blur=0.125", "s01mt", "blur=0.13&"),
        ]
        try await TestApp.withApp { client in
            for (query, cell, blur) in cases {
                let answer = try await TestApp.get(client, "/background?\(query)")
                #expect(answer.status == .ok, "\(query)")
                #expect(answer.headers[BackdropHeaders.cell] == cell, "\(query)")
                let link = answer.headers[BackdropHeaders.link] ?? ""
                #expect(link.contains(blur), "\(query): \(link)")
                if cell != "none" { #expect(link.contains("cell=\(cell)&"), "\(query): \(link)") }
            }
        }
    }

    @Test func aStockPhotosPageIsAPlainURLAndItsNoteAFieldOfItsOwn() async throws {
        try await TestApp.withApp { client in
            for query in ["?width=20&height=20", "?lat=1&lon=2&width=20&height=20"] {
                let info = try await TestApp.get(client, "/background.json\(query)")
                let json = try #require(try JSONSerialization.jsonObject(with: Data(info.body)) as? [String: Any])
                let page = try #require(json["photoPage"] as? String)
                #expect(json["source"] as? String == "stock")
                #expect(page.hasPrefix("https://") && !page.contains(where: \.isWhitespace) && URL(string: page)?.host != nil, "\(page)")
                let note = try #require(json["photoNote"] as? String)
                #expect(note.range(of: #"\.jpg(, \d{4})?$"#, options: .regularExpression) != nil, "\(note): the file, and its year when known")
                let image = try await TestApp.get(client, "/background\(query)")
                #expect(image.headers[BackdropHeaders.photoURL] == page, "the header is the same plain URL")
            }
        }
        #expect(StockCredits.source("https://example.com/x (a.jpg, 2018)") == ("https://example.com/x", "a.jpg, 2018"))
        #expect(StockCredits.source("https://example.com/x") == ("https://example.com/x", nil))
    }

    @Test func otherRoutes() async throws {
        try await TestApp.withApp { client in
            let health = try await TestApp.get(client, "/health")
            #expect(health.status == .ok)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(health.body)) as? [String: Any])
            #expect(json["status"] as? String == "ok" && json["version"] as? String == Backdrop.version)
            // As many stock photos as the folder has numbers (counted here from the file names), and no database.
            let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.stockFolder.path).filter { $0.hasSuffix(".jpg") }
            let numbers = Set(names.map { $0.prefix { $0.isNumber } }).filter { !$0.isEmpty }
            #expect(numbers.count >= 1 && json["stockPhotos"] as? Int == numbers.count, "\(json)")
            #expect(json["cluster"] as? String == "local")

            let page = try await TestApp.get(client, "/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(String(decoding: page.body, as: UTF8.self).contains("Backdrop"))

            let missing = try await TestApp.get(client, "/nothing-here")
            #expect(missing.status == .notFound)
            #expect(missing.json["error"]?.isEmpty == false)

            for method in [HTTPRequest.Method.post, .put, .delete] {
                let wrong = try await TestApp.get(client, "/background", method: method)
                #expect(wrong.status == .methodNotAllowed)
                #expect(wrong.headers[.allow] == "GET, HEAD")
                #expect(wrong.json["error"]?.isEmpty == false)
            }
        }
    }

    @Test func oneLogLinePerRequestWithoutCoordinates() async throws {
        let records = LogRecords()
        let logger = records.logger
        try await TestApp.withApp(logger: logger) { client in
            _ = try await TestApp.get(client, "/background?lat=42.61234&lon=-5.60123&width=10&height=10")
            _ = try await TestApp.get(client, "/background?lat=oops&lon=1")
        }
        let lines = records.all.filter { $0.message == "request" }
        #expect(lines.count == 2)
        let first = try #require(lines.first)
        #expect(first.metadata["method"] == "GET" && first.metadata["path"] == "/background" && first.metadata["status"] == "200")
        #expect(first.metadata["source"] == "stock" && first.metadata["cell"] == "ezs42" && first.metadata["ms"] != nil)
        #expect(lines[1].metadata["status"] == "400")
        let everything = records.all.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
        #expect(!everything.contains("42.61234") && !everything.contains("5.60123"))
    }

    @Test func headerTextIsSafe() throws {
        #expect(HeaderText.encode("Plain title") == "Plain title")
        #expect(HeaderText.encode("evil\r\nSet-Cookie: x=1") == "evil  Set-Cookie: x=1")
        #expect(HeaderText.encode("Zoë's café 100%") == "Zo%C3%AB's caf%C3%A9 100%25")
        #expect(HeaderText.encode("東京").removingPercentEncoding == "東京")
        // Long titles are cut at a character boundary in every script: what is left always decodes.
        for title in [
            String(repeating: "東京タワー", count: 60), String(repeating: "Zoë ", count: 200), String(repeating: "🌅🏔", count: 80),
            String(repeating: "Москва ", count: 60), String(repeating: "ab", count: 300) + "é", String(repeating: "e\u{301}", count: 200),
        ] {
            for limit in [512, 100, 37, 9, 5] {
                let encoded = HeaderText.encode(title, maxLength: limit)
                #expect(encoded.utf8.count <= limit, "\(limit)")
                let decoded = try #require(encoded.removingPercentEncoding, "\(title.prefix(10)) cut at \(limit): \(encoded.suffix(12))")
                #expect(title.hasPrefix(decoded.trimmingCharacters(in: .whitespaces)), "\(limit)")
            }
        }
    }
}
