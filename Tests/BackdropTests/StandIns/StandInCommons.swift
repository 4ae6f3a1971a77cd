import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import Backdrop

/// A stand-in for Wikimedia Commons on 127.0.0.1: the MediaWiki API at `/w/api.php` answering geosearches in Commons'
/// `formatversion=2` JSON in the shape of the real answers in `../shared/real-api/` (HTML in `Artist`, numbers as
/// strings, missing fields, every URL with a campaign query, `responsiveUrls`, `thumbwidth` the width asked), and the
/// media hosts' paths, thumbnails in the standard steps only (any other width is refused with a 400, as Wikimedia
/// refuses it). A recorded answer is served as it came (`.json(recorded)`). It records every call with its `User-Agent`.
///
/// The answers queued are what each cell's search meets in turn: a geosearch (the nearest files) takes the next one; an
/// assessed search (CirrusSearch's `nearcoord:` over the assessment categories) reads the same answer's assessed files
/// without taking it, or takes a fault (a status, no answer) as the call that meets it. ``Answer/files(_:)`` answers
/// every search from a map of files by what it asks: those within its radius, assessed or nearest first.
final class StandInCommons: Sendable {
    enum Answer: Sendable {
        case json(String)
        /// The JSON after a pause, as a distant API answers.
        case later(Duration, String)
        /// A status with its headers (`Retry-After`).
        case status(Int, [(String, String)])
        case noAnswer
        /// Three megabytes past what Backdrop reads.
        case oversized
        /// The head and half an answer, then the connection torn down.
        case reset
        /// Each search answered from these files by what it asks (``filesAnswer(_:query:)``).
        case files([File])
    }

    struct Call: Sendable {
        let path: String
        let query: [String: String]
        let userAgent: String?
    }

    struct File {
        var pageid: Int
        var name = "Tour Eiffel vue du Trocadéro.jpg"
        var width = 4000
        var height = 6000
        var mime = "image/jpeg"
        var license = "cc-by-sa-4.0"
        var shortName = "CC BY-SA 4.0"
        var licenseURL = "https://creativecommons.org/licenses/by-sa/4.0"
        var artist =
            #"<a href="//commons.wikimedia.org/wiki/User:Jean_Photographe" title="User:Jean Photographe">Jean <b>Photographe</b></a> &amp; co"#
        var attribution: String? = nil
        var taken: String? = nil
        var categories = "Eiffel Tower|Views from the Trocadéro"
        var gps: (Double, Double)? = (48.8616, 2.2893)
        /// `Assessments` and `Restrictions` as Commons writes them (`featured|quality`, `personality`), and the uploader.
        var assessments: String? = nil
        var restrictions: String? = nil
        var user = "Jean Photographe"
        /// What its image host serves for it: the photo, or a fault by ``StandInFlickr``'s names (`truncated.jpg`, …).
        var image = "photo.jpg"
        /// What its 120-px thumbnail shows (``StandInCommons/look(_:)``): by default a pattern of its own, unlike any
        /// other file's; files given one name here look alike.
        var look: String? = nil
        /// Metadata as raw JSON values in place of the generated ones (`"width": "\"4000\""`), and extra fields.
        var raw: [(String, String)] = []
    }

    let port: Int
    private let calls = Mutex<[Call]>([])
    /// Media requests (images and thumbnails) being answered now, and the most ever at once.
    let media = Mutex<(now: Int, most: Int)>((0, 0))
    let (released, release) = AsyncStream<Void>.makeStream()
    private let answers: Mutex<[Answer]>

    private init(port: Int) {
        self.port = port
        self.answers = Mutex([])
    }

    var endpoint: String { "http://localhost:\(self.port)/w/api.php" }
    var searches: [Call] { self.calls.withLock { $0.filter { $0.path == "/w/api.php" } } }
    /// The searches for the files nearest a point: one per cell searched that has too few assessed files.
    var geosearches: [Call] { self.searches.filter { $0.query["generator"] == "geosearch" } }
    /// The searches for the assessed files within a radius: the first call of every cell's search.
    var assessedSearches: [Call] { self.searches.filter { $0.query["generator"] == "search" } }
    /// The images downloaded, thumbnails for looks apart.
    var downloads: [Call] { self.calls.withLock { $0.filter { $0.path.hasPrefix("/wikipedia/") && !Self.isLook($0.path) } } }
    /// The thumbnails fetched for looks (``CommonsFile/lookWidth`` px wide).
    var looks: [Call] { self.calls.withLock { $0.filter { Self.isLook($0.path) } } }

    static func isLook(_ path: String) -> Bool {
        path.contains("/thumb/") && path.split(separator: "/").last?.hasPrefix("\(CommonsFile.lookWidth)px-") == true
    }

    /// The answer Commons gives for `files` (in `formatversion=2`: pages as an array, each with its generator `index`).
    func searchJSON(_ files: [File]) -> String { Self.searchJSON(files, base: "http://localhost:\(self.port)") }

    /// The same, its upload URLs under `base`.
    static func searchJSON(_ files: [File], base: String) -> String {
        let pages = files.enumerated().map { index, file -> String in
            let encoded = file.name.replacingOccurrences(of: " ", with: "_").addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
            // The image's folders name what its host serves (``File/image``) and its look (``File/look``), where Commons'
            // two hashed folders name a file.
            let folder = file.image.replacingOccurrences(of: ".", with: "_") + "/\(file.look ?? "own")~\(file.pageid)"
            // Today's shape (2026): every URL carries Wikimedia's campaign query; the thumbnail for the width asked
            // is at its standard step (1280 is one), and those for 1.5 and 2 times as dense at theirs, or the original
            // when it is narrower.
            let campaign = "?utm_source=commons.wikimedia.org&utm_campaign=imageinfo&utm_content="
            let original = "\(base)/wikipedia/commons/\(folder)/\(encoded)\(campaign)original"
            let thumbnail = { (step: Int) in
                file.width > step ? "\(base)/wikipedia/commons/thumb/\(folder)/\(encoded)/\(step)px-\(encoded)\(campaign)thumbnail" : original
            }
            let thumb = thumbnail(1280)
            var meta: [String: String] = [
                "Artist": file.artist, "LicenseShortName": file.shortName, "LicenseUrl": file.licenseURL, "License": file.license,
                "ObjectName": file.name.replacingOccurrences(of: ".jpg", with: ""), "Categories": file.categories,
            ]
            if let attribution = file.attribution { meta["Attribution"] = attribution }
            if let taken = file.taken { meta["DateTimeOriginal"] = taken }
            // Commons' metadata takes any category whose name starts like an assessment's; the categories asked by
            // `clcategories` are those the file is in exactly.
            if let assessments = file.assessments { meta["Assessments"] = assessments }
            let categories = (file.assessments ?? "").split(separator: "|").compactMap { Self.assessmentCategories[String($0)] }
            let categoryList =
                categories.isEmpty
                ? "" : ",\"categories\":[" + categories.map { "{\"ns\":14,\"title\":\(Self.quoted($0))}" }.joined(separator: ",") + "]"
            if let restrictions = file.restrictions { meta["Restrictions"] = restrictions }
            if let (lat, lon) = file.gps { (meta["GPSLatitude"], meta["GPSLongitude"]) = (String(lat), String(lon)) }
            let fields = meta.sorted { $0.key < $1.key }.map {
                "\"\($0.key)\":{\"value\":\(Self.quoted($0.value)),\"source\":\"commons-desc-page\",\"hidden\":\"\"}"
            }
            let extmetadata =
                "{\"CommonsMetadataExtension\":{\"value\":1.2,\"source\":\"extension\",\"hidden\":\"\"}," + fields.joined(separator: ",") + "}"
            let raw = file.raw.map { ",\"\($0.0)\":\($0.1)" }.joined()
            return """
                {"pageid":\(file.pageid)\(raw),"ns":6,"title":\(Self.quoted("File:" + file.name)),"index":\(index - 1),"imagerepository":"local"\(categoryList),\
                "imageinfo":[{"size":4123456,"width":\(file.width),"height":\(file.height),"thumburl":\(Self.quoted(thumb)),"thumbwidth":1280,\
                "thumbheight":\(file.height * 1280 / max(1, file.width)),"responsiveUrls":{"1.5":\(Self.quoted(thumbnail(1920))),"2":\(Self.quoted(thumbnail(3840)))},\
                "url":\(Self.quoted(original)),\
                "descriptionurl":"https://commons.wikimedia.org/wiki/File:\(encoded)","descriptionshorturl":"https://commons.wikimedia.org/w/index.php?curid=\(file.pageid)",\
                "mime":"\(file.mime)","user":\(Self.quoted(file.user)),"userid":\(file.user.utf8.reduce(7) { ($0 &* 31 &+ Int($1)) % 1_000_003 }),"extmetadata":\(extmetadata)}]}
                """
        }
        return "{\"batchcomplete\":true,\"query\":{\"pages\":[\(pages.joined(separator: ","))]}}"
    }

    /// The categories a file's assessments put it in, as `clcategories` names them.
    static let assessmentCategories = [
        "featured": "Category:Featured pictures on Wikimedia Commons", "quality": "Category:Quality images",
        "valued": "Category:Valued images sorted by promotion date",
    ]

    static func run(_ answers: @escaping @Sendable (StandInCommons) -> [Answer], _ body: @Sendable (StandInCommons) async throws -> Void) async throws
    {
        let box = Mutex<StandInCommons?>(nil)
        let photo = try Fixtures.bytes("flickr-photo.jpg")
        let router = Router()
        router.get("w/api.php") { request, _ -> Response in
            guard let commons = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            commons.record(request)
            let query = request.uri.queryParameters
            let assessed = query["generator"] == "search"
            switch assessed ? commons.answerForAssessed() : commons.nextAnswer() {
            case .files(let files):
                let text = commons.filesAnswer(files, query: Dictionary(query.map { (String($0.key), String($0.value)) }) { a, _ in a })
                return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
            case .json(let text) where assessed:
                return Response(
                    status: .ok,
                    headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: Self.assessedOnly(text)))
                )
            case .later(let pause, let text) where assessed:
                try await Task.sleep(for: pause)
                return Response(
                    status: .ok,
                    headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: Self.assessedOnly(text)))
                )
            case .json(let text):
                return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
            case .later(let pause, let text):
                try await Task.sleep(for: pause)
                return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
            case .status(let code, let headers):
                var fields = HTTPFields()
                for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
                return Response(status: .init(code: code), headers: fields, body: .init(byteBuffer: ByteBuffer(string: "<html>busy</html>")))
            case .noAnswer:
                for await _ in commons.released {}
                return Response(status: .ok)
            case .oversized:
                return Response(
                    status: .ok,
                    headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(repeating: 0x20, count: 7 << 20))
                )
            case .reset:
                let half = ByteBuffer(string: "{\"batchcomplete\":true,\"query\":{\"pages\":[")
                return Response(
                    status: .ok,
                    headers: [.contentType: "application/json", .contentLength: "4096"],
                    body: ResponseBody { writer in
                        try await writer.write(half)
                        throw CancellationError()  // the server drops the connection mid-body
                    }
                )
            }
        }
        router.get("wikipedia/**") { request, _ -> Response in
            guard let commons = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            commons.record(request)
            commons.media.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
            defer { commons.media.withLock { $0.now -= 1 } }
            let parts = request.uri.path.split(separator: "/").map(String.init)
            let last = parts.last ?? ""
            if Self.isLook(request.uri.path), parts.count > 4 {
                return try await Self.look(parts[4], released: commons.released)
            }
            if request.uri.path.contains("/thumb/") {
                let width = Int(last.prefix { $0.isNumber }) ?? 0
                guard CommonsThumbnail.steps.contains(width) else {
                    return Response(
                        status: .badRequest,
                        body: .init(byteBuffer: ByteBuffer(string: "Error: use one of the standard thumbnail sizes"))
                    )
                }
            }
            // The folder after `commons/` (or `commons/thumb/`) names what to serve; a redirect's target is its own name.
            let folder = parts.count > 3 ? parts[parts[2] == "thumb" ? 3 : 2] : "photo_jpg"
            let name = last.hasPrefix("photo-after-redirect") || last == "redirect-loop.jpg" ? last : folder.replacingOccurrences(of: "_", with: ".")
            return try await StandInFlickr.image(
                named: name,
                size: nil,
                photo: photo,
                base: "http://127.0.0.1:\(commons.port)/wikipedia/commons/x",
                released: commons.released
            )
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let commons = StandInCommons(port: try #require(client.port))
            let queued = answers(commons)
            commons.answers.withLock { $0 = queued }
            box.withLock { $0 = commons }
            defer { commons.release.finish() }
            try await body(commons)
        }
    }

    /// The thumbnail named `folder` (`LOOK~PAGEID` here, `LOOK~ID` at the stand-in Flickr), of look LOOK (as each
    /// stand-in serves its thumbnails): `photo` is the fixture photo, `photo-copy` the same brightened and encoded again at
    /// another quality (a copy of it uploaded by someone else), `astronaut` another photo; `hang` never answers and
    /// `html` is an error page; `slow` is `own` after 100 ms; `own` a pattern of 9 x 8 blocks of its own (seeded by the folder).
    static func look(_ folder: String, released: AsyncStream<Void>) async throws -> Response {
        switch folder.prefix(while: { $0 != "~" }) {
        case "hang":
            for await _ in released {}
            return Response(status: .ok)
        case "slow":  // a media host 100 ms away, as Wikimedia's are from most places
            try await Task.sleep(for: .milliseconds(100))
            return try await Self.look("own~" + folder, released: released)
        case "html":
            return Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: "<html>Not found</html>")))
        default:
            return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: try Self.lookJPEG(folder)))
        }
    }

    /// The JPEG of the look named `folder` that is an image (not a fault).
    static func lookJPEG(_ folder: String) throws -> ByteBuffer {
        let image: RGBImage
        let name = String(folder.prefix { $0 != "~" })
        switch name {
        case "photo", "photo-copy":
            let photo = try JPEGDecoder.decode(try Fixtures.bytes("flickr-photo.jpg"))
            image = BoxShrink.apply(name == "photo" ? photo : Self.brightened(photo, by: 12), factor: photo.width / CommonsFile.lookWidth)
            return try JPEGEncoder.encode(image, quality: name == "photo" ? 90 : 60)
        case "astronaut":
            let photo = try JPEGDecoder.decode(try Fixtures.bytes("astronaut.jpg"))
            image = BoxShrink.apply(photo, factor: photo.width / CommonsFile.lookWidth)
        default:
            var generator = SeededGenerator(seed: folder.utf8.reduce(1_469_598_103_934_665_603) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 })
            let levels = (0..<72).map { _ in UInt8.random(in: 20...235, using: &generator) }
            image = RGBImage(width: 120, height: 80) { out in
                for y in 0..<80 {
                    for x in 0..<120 {
                        let level = levels[(y / 10) * 9 + x * 9 / 120]
                        for channel in 0..<3 { out[(y * 120 + x) * 3 + channel] = level }
                    }
                }
            }
        }
        return try JPEGEncoder.encode(image, quality: 85)
    }

    static func brightened(_ image: RGBImage, by amount: Int) -> RGBImage {
        RGBImage(width: image.width, height: image.height, pixels: image.pixels.map { UInt8(clamping: Int($0) + amount) })
    }

    private func record(_ request: Request) {
        var query = [String: String]()
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        self.calls.withLock { $0.append(Call(path: request.uri.path, query: query, userAgent: request.headers[.userAgent])) }
    }

    /// What an assessed search meets: the answer the next geosearch will take, left for it, or a fault, taken.
    private func answerForAssessed() -> Answer {
        self.answers.withLock { answers in
            switch answers.first {
            case .json, .later, .files, nil: answers.first ?? .json("{\"batchcomplete\":true}")
            default: answers.count > 1 ? answers.removeFirst() : answers[0]
            }
        }
    }

    private func nextAnswer() -> Answer {
        self.answers.withLock { answers in answers.count > 1 ? answers.removeFirst() : answers.first ?? .json("{\"batchcomplete\":true}") }
    }

    static func quoted(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}
