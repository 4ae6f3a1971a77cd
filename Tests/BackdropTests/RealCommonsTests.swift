import AsyncHTTPClient
import Foundation
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import Backdrop

/// Issue 57: Commons as it answers today (the recorded answers in `../shared/real-api/`, replayed), and every field of
/// a Commons or Flickr answer as hostile input: no value crashes the process, leads a link to another host, or keeps
/// the other files of the answer from being ranked.
@Suite("Commons as it answers today, every field hostile", .serialized)
struct RealCommonsTests {
    static let mitCell = Geohash("drt2y")!
    static let wikimedia = ["thumb.wikimedia.org", "upload.wikimedia.org"]

    // MARK: - today's answers

    @Test(.enabled(if: RealAnswers.available))
    func aRecordedAnswerOfTodayGivesItsJPEGsWithTheURLsTheAPINamed() async throws {
        let found = try CommonsSearchResponse.parse(try RealAnswers.bytes(RealAnswers.mit), near: Self.mitCell)
        let pages = try RealAnswers.pages(RealAnswers.mit)
        let usable = pages.filter { page in
            guard let info = (page["imageinfo"] as? [[String: Any]])?.first, let width = info["width"] as? Int, let height = info["height"] as? Int
            else { return false }
            return info["mime"] as? String == "image/jpeg" && max(width, height) >= 1024
        }
        #expect(usable.count >= 40 && found.count == usable.count, "every large JPEG under a free licence: \(found.count) of \(usable.count)")
        // No name resolves here: the policy is asked as it would be with Wikimedia's public addresses.
        let policy = ImageHostPolicy(extraHosts: [], domains: ImageHostPolicy.wikimediaDomains, name: "Wikimedia") { _ in ["208.80.153.240"] }
        for candidate in found {
            for size in candidate.photo.sizes {
                let url = try #require(WebURL(size.url))
                #expect(Self.wikimedia.contains(url.host) && url.scheme == "https", "\(size.url)")
                #expect(size.url.contains("?utm_source=commons.wikimedia.org"), "the query is kept: \(size.url)")
                if size.label != "original" {
                    #expect(CommonsThumbnail(size.url)?.step == size.width, "the width is the URL's own step: \(size.url)")
                }
                try await policy.check(url)
            }
            #expect(candidate.photo.attribution.sourceURL.hasPrefix("https://commons.wikimedia.org/wiki/File:"))
            let license = candidate.photo.attribution
            #expect(license.licenseURL.hasPrefix("https://creativecommons.org/") || license.license == "Public domain", "from LicenseShortName")
        }
        // The API's own URLs are taken as they come: its 640-px answer points at the 960 step, and its 2x at 1280.
        let dome = try #require(found.first { $0.photo.id == "commons-3078866" })
        #expect(dome.photo.sizes.map(\.label) == ["960px", "1280px", "1920px"])
        #expect(dome.photo.sizes[0].url.hasPrefix("https://thumb.wikimedia.org/wikipedia/commons/thumb/a/ac/MIT_Dome_night1_Edit.jpg/960px-"))
        #expect(dome.photo.sizes[2].url.contains("/1920px-MIT_Dome_night1_Edit.jpg?utm_source="), "another step, the rest kept")
        #expect(dome.thumbnail?.contains("/120px-MIT_Dome_night1_Edit.jpg?utm_source=") == true)
        // A very long name's thumbnail is `960px-thumbnail.jpg`: its other steps keep that file part.
        let long = try #require(found.first { $0.photo.sizes.contains { $0.url.contains("px-thumbnail.jpg") } })
        #expect(long.photo.sizes.filter { $0.label != "original" }.allSatisfy { $0.url.contains("/\($0.width)px-thumbnail.jpg?") })
    }

    @Test(.enabled(if: RealAnswers.available))
    func aRecordedAnswerReplayedToTheServiceHasItsPhotosTried() async throws {
        let recorded = try RealAnswers.text(RealAnswers.mit)
        let asked = Mutex<Set<String>>([])
        try await StandInCommons.run({ _ in [.json(recorded)] }) { commons in
            let records = LogRecords()
            let logger = records.logger
            let settings = CommonsBackdrop.settings(commons) { $0.photos.sources = [.commons, .stock] }
            // Nothing beyond loopback resolves here: a name asked for is a photo tried, and only the network stops it.
            let resolve: @Sendable (String) async -> [String] = { host in
                asked.withLock { _ = $0.insert(host) }
                return []
            }
            try await TestApp.run(settings, logger: logger, resolve: resolve) { client in
                let (answer, json) = try await TestApp.answerAndJSON(client, "\(RealAnswers.mitQuery)&width=390&height=844")
                #expect(answer.status == .ok && json["source"] as? String == "stock", "no network here: stock at the end of the line")
            }
            let passed = records.all.first { $0.message == "photos passed over" }?.metadata["passed"] ?? ""
            #expect(passed.components(separatedBy: "commons-").count - 1 == 3, "three Commons photos tried (issue 57's bound): \(passed)")
            #expect(!passed.contains("is not a Wikimedia image host"), "today's hosts are Wikimedia's: \(passed)")
            #expect(passed.contains("does not resolve"))
            #expect(asked.withLock { $0.contains("thumb.wikimedia.org") }, "\(asked.withLock { $0 })")
        }
    }

    @Test(
        .enabled(if: RealAnswers.available),
        arguments: [
            "commons-paradispartiet-geosearch-oslo-stensparken.json", "commons-wordpress-allimages-extmetadata-50.json",
            "commons-wikimedia-mediasearch-imageinfo-featured.json", "commons-wikimedia-android-imageinfo-personality.json",
            "commons-wikimedia-ios-imageinfo-multilang.json",
        ]
    )
    func everyOtherRecordedShapeIsReadWithoutFailing(_ name: String) throws {
        let found = try CommonsSearchResponse.parse(try RealAnswers.bytes(name), near: Self.mitCell)
        for candidate in found {
            #expect(
                candidate.photo.attribution.licenseURL.hasPrefix("https://creativecommons.org/")
                    || candidate.photo.attribution.license == "Public domain"
            )
            #expect(candidate.facts.assessment == nil, "`Assessments` is not read: only the exact categories count")
        }
        if name.contains("mediasearch") {
            let cat = try #require(found.first, "a large JPEG, its mime given")
            #expect(cat.photo.shown == nil && cat.facts.taken == nil, "'18 January 2009' is a date, not a time")
            #expect(cat.photo.attribution.licenseURL == "https://creativecommons.org/licenses/by/2.0/fr/", "made from the code")
        }
    }

    // MARK: - every field hostile

    /// Values to put in a field, as JSON text (so that numbers JSONSerialization cannot write, such as `1e400`, can be).
    static let hostileValues: [String] = {
        let strings = [
            "1e300", "-1e400", "nan", "NaN", "inf", "-INF", "9223372036854775808", "91", "-181", "1e-400", "0x1p3", "", " ",
            String(repeating: "é", count: 30_000), "<script>alert(1)</script>", "<a href=\"javascript:x\">a</a>",
            "a\u{200B}b\u{00AD}c\u{2060}d\u{E0041}e\u{202E}f", "https://evil.example\\@creativecommons.org/licenses/by-sa/4.0/",
            "https://user:pw@upload.wikimedia.org/x.jpg", "javascript:alert(1)", "//evil.example/x.jpg", "https://evil.example/wiki/File:X.jpg",
            "http://commons.wikimedia.org/wiki/File:X.jpg", "0000-00-00 25:61:61", "9999-99-99 99:99:99", "2024-06-21 12:00:00",
            "Quality images by user X|Featured pictures on Wikimedia Commons (nominations)", "personality|featured|quality",
        ]
        let numbers = ["1e300", "-1e300", "1e400", "-1e400", "9223372036854775808", "-9223372036854775809", "0", "-1", "-4000", "2.5", "1e15"]
        let others = ["null", "true", "{}", "[]", "{\"value\":{\"en\":\"x\",\"_type\":\"lang\"}}", "[{\"title\":1}]", "[{\"lat\":1e300,\"lon\":0}]"]
        return strings.map(StandInCommons.quoted) + numbers + others
    }()

    static let fields = [
        "meta:GPSLatitude", "meta:GPSLongitude", "meta:DateTimeOriginal", "meta:Categories", "meta:Restrictions", "meta:Artist",
        "meta:LicenseUrl", "meta:License", "meta:LicenseShortName", "meta:ObjectName", "meta:Attribution", "meta:Assessments",
        "info:width", "info:height", "info:url", "info:thumburl", "info:descriptionurl", "info:mime", "info:user", "info:userid",
        "info:responsiveUrls", "page:pageid", "page:title", "page:index", "page:categories", "page:coordinates",
    ]

    /// Six files near the Eiffel Tower, the first with `value` in `field`, as Commons' answer.
    static func answer(_ field: String, _ value: String) throws -> [UInt8] {
        let files = (1...6).map { id in
            var file = StandInCommons.File(pageid: id)
            file.taken = "2024-06-21 12:00:00"
            file.user = "Uploader \(id)"
            file.assessments = "quality"
            return file
        }
        let text = StandInCommons.searchJSON(files, base: "https://upload.wikimedia.org")
        var answer = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var query = try #require(answer["query"] as? [String: Any])
        var pages = try #require(query["pages"] as? [[String: Any]])
        let marker = "@@hostile@@"
        let (place, key) = (field.prefix { $0 != ":" }, String(field.drop { $0 != ":" }.dropFirst()))
        var page = pages[0]
        var infos = try #require(page["imageinfo"] as? [[String: Any]])
        switch place {
        case "meta":
            var meta = try #require(infos[0]["extmetadata"] as? [String: Any])
            meta[key] = ["value": marker, "source": "commons-desc-page"]
            infos[0]["extmetadata"] = meta
        case "info": infos[0][key] = marker
        default: page[key] = marker
        }
        page["imageinfo"] = infos
        pages[0] = page
        query["pages"] = pages
        answer["query"] = query
        let json = String(decoding: try JSONSerialization.data(withJSONObject: answer), as: UTF8.self)
        return Array(json.replacingOccurrences(of: "\"\(marker)\"", with: value).utf8)
    }

    /// Each field in turn takes each hostile value: the answer is read, the five others are kept and ranked, and whatever
    /// is kept of the hostile file is within bounds: sizes, positions, links to the source's own hosts, plain credits.
    @Test(arguments: Self.fields)
    func oneHostileFieldNeverCrashesNorMisleadsNorSinksTheCell(_ field: String) throws {
        let ranking = PhotoRanking(phase: .day, shape: .portrait)
        for value in Self.hostileValues {
            let found = try CommonsSearchResponse.parse(try Self.answer(field, value), near: CommonsBackdrop.cell)
            let ids = Set(found.map(\.photo.id))
            #expect(ids.isSuperset(of: (2...6).map { "commons-\($0)" }), "\(field) = \(value.prefix(60)): the others are kept (\(ids.sorted()))")
            for candidate in found {
                let photo = candidate.photo
                #expect(photo.attribution.licenseURL.hasPrefix("https://creativecommons.org/licenses/"), "\(field) = \(value.prefix(60))")
                #expect(photo.attribution.sourceURL.hasPrefix("https://commons.wikimedia.org/wiki/"), "\(field) = \(value.prefix(60))")
                for size in photo.sizes {
                    #expect(
                        WebURL(size.url).map { Self.wikimedia.contains($0.host) } == true,
                        "\(field) = \(value.prefix(60)): \(size.url.prefix(80))"
                    )
                    #expect((1...100_000).contains(size.width) && (1...100_000).contains(size.height))
                }
                for text in [photo.attribution.title, photo.attribution.author] {
                    #expect(!text.contains("<") && text.unicodeScalars.allSatisfy { $0.properties.generalCategory != .format }, "\(field)")
                }
                #expect(
                    candidate.facts.assessment == (candidate.photo.id == "commons-1" && field == "page:categories" ? nil : 2),
                    "\(field) = \(value.prefix(60))"
                )
            }
            #expect(ranking.choose(found.map(\.facts), key: "u09tq", window: 0).count == found.count)
        }
    }

    /// Flickr's answer, each field of one photo hostile in turn: the others are kept, nothing out of bounds enters.
    @Test func oneHostileFlickrFieldNeverCrashesNorSinksTheAnswer() throws {
        let fields = [
            "latitude", "longitude", "accuracy", "datetaken", "width_l", "height_l", "url_l", "url_t", "o_width", "views", "ownername",
            "title", "tags", "license", "id", "owner",
        ]
        for field in fields {
            for raw in Self.hostileValues {
                let value = raw.prefix(60)
                let photos = (1...4).map { id in
                    var fields = [
                        "id": "\"\(id)\"", "owner": "\"1@N0\(id)\"", "secret": "\"s\"", "server": "\"1\"", "title": "\"T\"", "license": "\"4\"",
                        "datetaken": "\"2024-06-21 12:00:00\"", "datetakengranularity": "\"0\"", "ownername": "\"O\"", "tags": "\"sunset\"",
                        "latitude": "\"48.85\"", "longitude": "\"2.29\"", "accuracy": "\"16\"",
                        "url_l": "\"https://live.staticflickr.com/1/\(id)_s_b.jpg\"", "width_l": "\"1024\"", "height_l": "\"768\"",
                        "url_t": "\"https://live.staticflickr.com/1/\(id)_s_t.jpg\"", "width_t": "100", "height_t": "75",
                    ]
                    if id == 1 { fields[field] = raw }
                    return "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
                }
                let body =
                    "{\"photos\":{\"page\":1,\"pages\":1,\"perpage\":4,\"total\":\"4\",\"photo\":[\(photos.joined(separator: ","))]},\"stat\":\"ok\"}"
                let answer = try FlickrSearchResponse.parse(Array(body.utf8), allowedLicenses: [4])
                let ids = Set(answer.photos.map(\.id))
                #expect(ids.isSuperset(of: ["2", "3", "4"]), "\(field) = \(value.prefix(60))")
                for photo in answer.photos {
                    #expect(
                        photo.sizes.allSatisfy { WebURL($0.url) != nil && $0.width <= 100_000 && $0.height <= 100_000 },
                        "\(field) = \(value.prefix(60))"
                    )
                    if let latitude = photo.facts.latitude, let longitude = photo.facts.longitude {
                        #expect(GeoPoint(latitude: latitude, longitude: longitude) != nil)
                    }
                    _ = photo.sourcePhoto(shown: nil)
                }
            }
        }
    }

    /// The process died here on the code before issue 57: `GPSLatitude` `1e300` with a valid clock reached the
    /// civil-time grid's `Int(...)`. Through the service, the cell is served (from the other files).
    @Test func aPositionOffTheGlobeIsNoPositionAndTheCellIsServed() async throws {
        for latitude in ["1e300", "-1e400", "nan", "inf", "9223372036854775808", "91"] {
            let files = (1...6).map { id in
                var file = StandInCommons.File(pageid: id)
                file.taken = "2024-06-21 12:00:00"
                file.gps = nil
                return file
            }
            let answer = { @Sendable (commons: StandInCommons) -> [StandInCommons.Answer] in
                [
                    .json(
                        commons.searchJSON(files).replacingOccurrences(
                            of: "\"CommonsMetadataExtension\"",
                            with: "\"GPSLatitude\":{\"value\":\"\(latitude)\"},\"GPSLongitude\":{\"value\":\"2.29\"},\"CommonsMetadataExtension\""
                        )
                    )
                ]
            }
            try await CommonsBackdrop.withBackdrop(answer) { _, client, _ in
                let (response, json) = try await TestApp.answerAndJSON(client, "\(CommonsBackdrop.paris)&width=64&height=64")
                #expect(response.status == .ok && json["source"] as? String == "commons", "GPSLatitude \(latitude)")
            }
        }
        #expect(GeoPoint(latitude: "91", longitude: "0") == nil && GeoPoint(latitude: "90", longitude: "-180") != nil)
        #expect(ZoneGrid.shared.zone(latitude: .infinity, longitude: .nan) == ZoneGrid.shared.zone(latitude: 90, longitude: -180))
    }

    /// Every conversion from floating point to an integer in Sources goes through these: none can trap.
    @Test func conversionsToIntegersAreTotal() {
        #expect(Int(total: Double.nan) == 0 && Int(total: Double.infinity) == .max && Int(total: -Double.infinity) == .min)
        #expect(Int(total: 1e300) == .max && Int(total: -1e300) == .min && Int(total: 9_223_372_036_854_775_808.0) == .max)
        #expect(Int(total: 2.7) == 2 && Int(total: -2.7) == -2 && Int64(total: 9.3e18) == .max && UInt64(total: 1.9e19) == .max)
        #expect(UInt8(total: 300.0) == 255 && UInt8(total: -3.0) == 0 && UInt8(total: Float(254.9)) == 254 && Int32(total: Float.nan) == 0)
        #expect(Int(total: Float.nan) == 0 && Int(total: Float.infinity) == .max && Int(total: -Float(1e30)) == .min && Int(total: Float(-2.5)) == -2)
        #expect(Int(clamping: .nan, to: 3...9) == 3 && Int(clamping: 1e300, to: 3...9) == 9 && Int(clamping: 5.5, to: 3...9) == 5)
    }

    @Test func linksAreBuiltNotPassedOn() throws {
        #expect(CommonsLicense(code: "cc-by-sa-4.0")?.url == "https://creativecommons.org/licenses/by-sa/4.0/")
        #expect(CommonsLicense(code: "cc-by-2.0-fr")?.url == "https://creativecommons.org/licenses/by/2.0/fr/")
        #expect(CommonsLicense.code(shortName: "CC BY-SA 3.0") == "cc-by-sa-3.0" && CommonsLicense.code(shortName: "Public domain") == "pd")
        #expect(CommonsFile.pageURL("https://evil.example/wiki/File:X.jpg", title: "X y.jpg") == "https://commons.wikimedia.org/wiki/File:X_y.jpg")
        #expect(
            CommonsFile.pageURL("https://commons.wikimedia.org\\@evil.example/wiki/File:X.jpg", title: "X.jpg").hasPrefix(
                "https://commons.wikimedia.org/wiki/"
            )
        )
        #expect(
            CommonsFile.pageURL("https://commons.wikimedia.org/wiki/File:A.jpg", title: "B.jpg") == "https://commons.wikimedia.org/wiki/File:A.jpg"
        )
        #expect(WebURL("https://evil.example\\@creativecommons.org/licenses/by-sa/4.0/") == nil, "a browser goes to evil.example")
        #expect(WebURL("HTTPS://Thumb.Wikimedia.ORG/a?b#c")?.text == "https://thumb.wikimedia.org/a?b#c")
        #expect(PlainText.line("Zero\u{200B}width soft\u{00AD}hyphen e\u{2060}x\u{E0041} \u{202E}rtl") == "Zerowidth softhyphen ex rtl")
        #expect(PlainText.line("क्\u{200D}ष and \u{200D}alone") == "क्\u{200D}ष and alone", "ZWJ within a word only")
    }

    // MARK: - the operator's lists, at ranking time

    /// A word added to `photos.keepOut` after a cell was searched reaches its results at once, stored or shared (here
    /// through their JSON), Commons' categories and Flickr's tags alike; a Commons uploader is denied by name in any
    /// script.
    @Test func aKeptOutWordAndADenialReachResultsAlreadySearched() throws {
        var parking = StandInCommons.File(pageid: 1)
        parking.categories = "Parking lots in Paris|Eiffel Tower"
        var mine = StandInCommons.File(pageid: 2)
        mine.user = "Jérôme Dupont"
        var flickr = FlickrPhoto(
            id: "77",
            owner: "1@N01",
            ownerName: "O",
            pathAlias: nil,
            title: "T",
            license: try #require(FlickrLicense.named(4)),
            sizes: [PhotoSize(label: "l", url: "https://live.staticflickr.com/1/77_s_b.jpg", width: 1024, height: 1536)],
            facts: FlickrPhotoFacts()
        )
        flickr.facts.tags = ["streetart", "graffiti"]
        let found = try CommonsBackdrop.parse([parking, mine, StandInCommons.File(pageid: 3)]) + [CandidatePhoto(flickr, near: CommonsBackdrop.cell)]
        let stored = try JSONDecoder().decode([CandidatePhoto].self, from: JSONEncoder().encode(found))
        let window = TimeWindow(containing: TestApp.epoch, seconds: 900)
        func ids(_ keepOut: KeptOut, _ deny: [String] = []) -> Set<String> {
            let choice = CellChoice.ranking(stored, cell: CommonsBackdrop.cell, window: window, deny: PhotoDenylist(deny), keepOut: keepOut).choice
            return Set(choice.candidates(for: .portrait).map(\.id))
        }
        #expect(ids(KeptOut()) == ["commons-1", "commons-2", "commons-3", "flickr-77"])
        #expect(ids(KeptOut(extra: ["parking lots", "graffiti"])) == ["commons-2", "commons-3"], "categories and tags kept with the results")
        let deny = try Settings.parse(Data(#"{"photos": {"deny": ["commons-user:Jérôme_Dupont"]}}"#.utf8)).photos.deny
        #expect(ids(KeptOut(), deny) == ["commons-1", "commons-3", "flickr-77"], "an uploader named in UTF-8")
        #expect(throws: (any Error).self) { try Settings.parse(Data(#"{"photos": {"deny": ["commons-user:A\u200bB"]}}"#.utf8)) }
        // A stored choice keeps no categories: it is named by the list it was chosen under.
        #expect(KeptOut().digest == KeptOut().digest && KeptOut(extra: ["graffiti"]).digest != KeptOut().digest)
    }

    /// After a restart with a word added to `photos.keepOut`, within the day: no new search, and the file it names is
    /// served in no variant, though it was the window's stored choice.
    @Test func aRestartWithANewKeptOutWordServesNoneOfItWithoutSearchingAgain() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let answers = { @Sendable (commons: StandInCommons) -> [StandInCommons.Answer] in
            var parking = StandInCommons.File(pageid: 1)
            parking.categories = "Parking lots in Paris"
            parking.assessments = "featured"
            return [.json(commons.searchJSON([parking, StandInCommons.File(pageid: 2)]))]
        }
        try await StandInCommons.run(answers) { commons in
            var served = [[String]]()
            for keepOut in [[String](), ["parking lots"]] {
                let settings = CommonsBackdrop.settings(commons) {
                    $0.cache.folder = folder.path
                    $0.photos.keepOut = keepOut
                }
                let ids = Mutex<[String]>([])
                try await TestApp.run(settings) { client in
                    for variant in 0..<2 {
                        let (_, json) = try await TestApp.answerAndJSON(client, "\(CommonsBackdrop.paris)&width=64&height=64&variant=\(variant)")
                        ids.withLock { $0.append(json["photoId"] as? String ?? "") }
                    }
                }
                served.append(ids.withLock { $0 })
            }
            #expect(served[0].contains("commons-1"), "before: the featured file is served \(served[0])")
            #expect(!served[1].contains("commons-1") && served[1].contains("commons-2"), "after: \(served[1])")
            #expect(commons.searches.count == 3, "the first start's three calls: the day's results came back from disk and were filtered again")
        }
    }

    /// Thumbnails for looks are capped at 256 kB, photos at `commons.maxDownloadMB`.
    @Test func thumbnailsHaveTheirOwnCap() throws {
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = http.shutdown() }
        let photos = ImageDownloader(http: http, policy: ImageHostPolicy(extraHosts: []), maxBytes: 20 << 20, timeout: .seconds(1))
        #expect(photos.capped(at: CandidateLooks.maxBytes, lane: .background).maxBytes == 262_144 && photos.maxBytes == 20_971_520)
    }

    /// One assessed file among equals holds no place's every window: the pool keeps at least four in turn.
    @Test func oneAssessedFileDoesNotHoldEveryWindow() {
        var facts = (0..<8).map { index in
            RankingCandidate(
                id: "c\(index)",
                owner: "o\(index)",
                shown: nil,
                setting: .outdoors,
                accuracy: 16,
                order: index,
                width: 3000,
                height: 4000
            )
        }
        facts[5].assessment = 3
        let ranking = PhotoRanking(phase: .day, shape: .portrait)
        let firsts = Set((0..<96).map { ranking.choose(facts, key: "u09tq", window: Int64($0))[0] })
        #expect(firsts.count == 4 && firsts.contains(5), "the featured file and the next three in turn: \(firsts.sorted())")
    }
}
