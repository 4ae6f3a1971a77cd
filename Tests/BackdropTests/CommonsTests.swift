import Foundation
import HummingbirdTesting
import Logging
import Testing

@testable import Backdrop

/// Wikimedia Commons with no key: its answers read (licences, plain-text credits, sizes, the sky), and the source
/// through a stand-in `api.php` and upload host on loopback: served, credited, searched once a day, and every fault
/// ending in a stock photo within the deadline.
@Suite("Wikimedia Commons through a stand-in on loopback", .serialized)
struct CommonsTests {
    typealias File = StandInCommons.File

    // MARK: - answers read

    /// Issue 59, part 4: an imported file's owner is its author, not the importer; a file its uploader made is the
    /// uploader's. The denylist still names the uploader.
    @Test func anImportedFilesOwnerIsItsAuthorNotTheImporter() throws {
        let own = File(pageid: 1)  // Artist links User:Jean_Photographe, the uploader
        let imported = (2...7).map { id -> File in
            var file = File(pageid: id)
            file.user = "Flickr upload bot"
            file.artist = #"<a rel="nofollow" class="external text" href="https://www.flickr.com/people/\#(id)">Photographer   \#(id)</a> from Lyon"#
            return file
        }
        let found = try CommonsBackdrop.parse([own] + imported)
        #expect(found.map(\.facts.owner) == ["commons-user:Jean_Photographe"] + (2...7).map { "commons-artist:photographer \($0) from lyon" })
        #expect(found.dropFirst().allSatisfy { $0.photo.owner == "commons-user:Flickr_upload_bot" }, "the denylist names the uploader")
        let (first, later, _) = PhotoRanking(phase: .day, shape: .landscape).ranked(found.map(\.facts))
        #expect(first.count == 7 && later.isEmpty, "six photographers, not one importer's two places")
    }

    @Test func onlyFreeLargeJPEGsAreKeptWithPlainTextCredits() throws {
        var free = File(pageid: 1)
        free.attribution = nil
        var nonCommercial = File(pageid: 2)
        (nonCommercial.license, nonCommercial.shortName) = ("cc-by-nc-sa-4.0", "CC BY-NC-SA 4.0")
        var noDerivatives = File(pageid: 3)
        noDerivatives.license = "cc-by-nd-4.0"
        var gfdl = File(pageid: 4)
        (gfdl.license, gfdl.shortName, gfdl.licenseURL) = ("gfdl", "GFDL", "https://www.gnu.org/copyleft/fdl.html")
        var png = File(pageid: 5)
        png.mime = "image/png"
        var small = File(pageid: 6)
        (small.width, small.height) = (800, 600)
        var zero = File(pageid: 7)
        (zero.license, zero.shortName, zero.licenseURL) = ("cc0", "CC0", "")
        var credited = File(pageid: 8)
        (credited.attribution, credited.license, credited.licenseURL) = (
            "<i>Photo: Musée d'Orsay</i>", "cc-by-2.0-fr", "http://creativecommons.org/licenses/by/2.0/fr/deed.en"
        )
        let kept = try CommonsBackdrop.parse([free, nonCommercial, noDerivatives, gfdl, png, small, zero, credited])
        #expect(kept.map(\.photo.id) == ["commons-1", "commons-7", "commons-8"], "NonCommercial, NoDerivs, GFDL, PNG and small files are skipped")
        let first = kept[0].photo
        #expect(first.origin == .commons && first.attribution.author == "Jean Photographe & co", "no markup: \(first.attribution.author)")
        #expect(first.attribution.license == "CC BY-SA 4.0" && first.attribution.licenseURL == "https://creativecommons.org/licenses/by-sa/4.0/")
        #expect(first.attribution.sourceURL == "https://commons.wikimedia.org/wiki/File:Tour_Eiffel_vue_du_Trocad%C3%A9ro.jpg")
        #expect(first.attribution.title == "Tour Eiffel vue du Trocadéro")
        #expect(first.sizes.map(\.label) == ["960px", "1280px", "1920px"] && first.sizes.allSatisfy { $0.url.contains("/\($0.width)px-") })
        #expect(
            kept[1].photo.attribution.license == "CC0 1.0"
                && kept[1].photo.attribution.licenseURL.hasPrefix("https://creativecommons.org/publicdomain")
        )
        #expect(kept[2].photo.attribution.author == "Photo: Musée d'Orsay", "Attribution, when given, is the credit")
        #expect(kept[2].photo.attribution.licenseURL == "https://creativecommons.org/licenses/by/2.0/fr/", "made from the code alone")
        for photo in kept.map(\.photo) {
            for text in [photo.attribution.author, photo.attribution.title, photo.attribution.license] {
                #expect(!text.contains("<") && !text.contains(">") && !text.contains("&amp;"), "\(text)")
            }
        }
    }

    @Test func theSkyFromTheTimeTakenOrTheCategoriesAndTheSettingFromCategories() throws {
        var night = File(pageid: 1)
        night.taken = #"<time class="dtstart" datetime="2024-06-21">2024-06-21 23:40:12</time>"#
        var sunset = File(pageid: 2)
        (sunset.categories, sunset.gps) = ("Sunsets in Paris|Seine", nil)
        var blue = File(pageid: 3)
        blue.categories = "Blue hour in Paris"
        var inside = File(pageid: 4)
        inside.categories = "Interiors of the Louvre"
        var narrow = File(pageid: 5)
        (narrow.width, narrow.height) = (1600, 1067)
        var exact = File(pageid: 6)
        (exact.width, exact.height) = (1920, 1280)
        let kept = try CommonsBackdrop.parse([night, sunset, blue, inside, narrow, exact])
        #expect(kept.map(\.photo.shown) == [.night, .dusk, .twilight, nil, nil, nil])
        #expect(kept[3].facts.setting == .indoors && kept[0].facts.setting == .outdoors, "views from…: outdoors")
        #expect(kept[0].facts.accuracy == 16 && kept[1].facts.accuracy == 11, "placed where the camera stood, else by the search")
        #expect(kept[4].photo.sizes.map(\.label) == ["960px", "1280px", "original"], "narrower than 1920: the original is the largest")
        #expect(kept[5].photo.sizes.map(\.width) == [960, 1280, 1920], "exactly 1920 wide: the original, not the 1280 thumbnail")
        #expect(CommonsFile.exactTime("2024-06-21 23:40") == "2024-06-21 23:40:00" && CommonsFile.exactTime("2024-06") == nil)
    }

    /// Issue 50: a category names a phase by how categories are named, never by a word alone.
    @Test(arguments: [
        ("Sunsets in Paris", SunPhase?.some(.dusk)), ("Sunsets", .dusk), ("Sunset over the Seine", .dusk), ("Sunset Boulevard", nil),
        ("Sunset Boulevard at night", .night), ("Alba Iulia", nil), ("Alba Iulia at dawn", .dawn), ("Sunrises in Romania", .dawn),
        ("Stars on the Hollywood Walk of Fame", nil), ("Night in Paris", .night), ("Eiffel Tower at night", .night),
        ("Paris by night", .night), ("Night views of Paris", .night), ("Night of the Living Dead", nil), ("Dawn of the Dead", nil),
        ("Blue hour in Paris", .twilight), ("Blue_hour_in_Prague", .twilight), ("Blue Hour (band)", nil),
        ("Golden hour in Lisbon", .dusk), ("Twilight (film)", nil), ("Twilight in Venice", .twilight), ("Nightclubs in Paris", nil),
        ("Dusk", .dusk), ("Sunset Park, Brooklyn", nil), ("Interiors of the Louvre", nil),
    ])
    func categoriesNameAPhaseByTheirStructure(category: String, expected: SunPhase?) {
        #expect(CategoryPhrases.phase([category.lowercased()]) == expected, "\(category)")
    }

    @Test func mistByTheCategorysStructureAndCategoriesThatDisagreeSayNothing() {
        #expect(CategoryPhrases.misty(["fog in london"]) && CategoryPhrases.misty(["golden gate bridge in the fog"]))
        #expect(!CategoryPhrases.misty(["foggy bottom"]) && !CategoryPhrases.misty(["mist falls"]) && !CategoryPhrases.misty(["fog (film)"]))
        #expect(CategoryPhrases.phase(["sunsets in paris", "paris at night"]) == nil, "a sunset and the night after it")
        #expect(CategoryPhrases.phase(["sunsets in paris", "sunset over the seine", "seine"]) == .dusk)
    }

    @Test func errorsAndOddAnswers() throws {
        let busy = #"{"error":{"code":"maxlag","info":"Waiting for a database server: 6 seconds lagged."},"servedby":"mw1234"}"#
        #expect { try CommonsSearchResponse.parse(Array(busy.utf8), near: CommonsBackdrop.cell) } throws: {
            ($0 as? CommonsError)?.kind == .transient
        }
        let bad = #"{"error":{"code":"invalid-coord","info":"Invalid coordinate provided"}}"#
        #expect { try CommonsSearchResponse.parse(Array(bad.utf8), near: CommonsBackdrop.cell) } throws: { ($0 as? CommonsError)?.kind == .failed }
        #expect { try CommonsSearchResponse.parse(Array("<html>".utf8), near: CommonsBackdrop.cell) } throws: {
            ($0 as? CommonsError)?.kind == .malformed
        }
        #expect(try CommonsSearchResponse.parse(Array(#"{"batchcomplete":true}"#.utf8), near: CommonsBackdrop.cell).isEmpty, "nothing near: no query")
        let missing =
            #"{"query":{"pages":[{"pageid":9,"ns":6,"title":"File:X.jpg","index":-1},{"pageid":10,"ns":6,"title":"File:Y.jpg","imageinfo":[{"mime":"image/jpeg"}]}]}}"#
        #expect(try CommonsSearchResponse.parse(Array(missing.utf8), near: CommonsBackdrop.cell).isEmpty, "files without what they need are skipped")
    }

    @Test func theSourcesAndCommonsKeysAreChecked() throws {
        #expect(Settings().photos.sources == [.flickr, .commons, .stock], "Commons on by default")
        #expect(try Settings.parse(Data(#"{"photos": {"sources": ["commons", "stock"]}}"#.utf8)).photos.sources == [.commons, .stock])
        for bad in [#"["stock", "flickr"]"#, #"["flickr"]"#, #"["flickr", "flickr", "stock"]"#, #"["unsplash", "stock"]"#] {
            #expect { try Settings.parse(Data(#"{"photos": {"sources": \#(bad)}}"#.utf8)) } throws: { "\($0)".contains("photos.sources") }
        }
        for (key, value) in [("radiusKm", "11"), ("userAgent", "\"\""), ("endpoint", "\"ftp://x\""), ("extraImageHosts", "[\"a b\"]")] {
            #expect { try Settings.parse(Data(#"{"commons": {"\#(key)": \#(value)}}"#.utf8)) } throws: { "\($0)".contains("commons.\(key)") }
        }
        let settings = try Settings.parse(Data("{}".utf8), environment: ["BACKDROP_PHOTO_SOURCES": "flickr, stock"])
        #expect(settings.photos.sources == [.flickr, .stock])
        #expect { try Settings.parse(Data("{}".utf8), environment: ["BACKDROP_PHOTO_SOURCES": "stock,commons"]) } throws: {
            "\($0)".contains("BACKDROP_PHOTO_SOURCES")
        }
    }

    // MARK: - through the stand-in

    @Test func withNoKeyAPlaceCommonsKnowsGetsACommonsPhotoCreditedExactly() async throws {
        try await CommonsBackdrop.withBackdrop({ [.json($0.searchJSON([File(pageid: 4242)]))] }) { commons, client, records in
            let (answer, json) = try await TestApp.answerAndJSON(client, "\(CommonsBackdrop.paris)&width=390&height=844")
            #expect(json["source"] as? String == "commons" && json["photoId"] as? String == "commons-4242")
            #expect(json["owner"] as? String == "Jean Photographe & co" && json["title"] as? String == "Tour Eiffel vue du Trocadéro")
            #expect((json["license"] as? [String: Any])?["name"] as? String == "CC BY-SA 4.0")
            #expect(json["photoPage"] as? String == "https://commons.wikimedia.org/wiki/File:Tour_Eiffel_vue_du_Trocad%C3%A9ro.jpg")
            #expect(json["modified"] as? String == BackgroundInfo.modifiedNote && json["notice"] == nil)
            #expect(answer.headers[BackdropHeaders.source] == "commons")
            let image = try await TestApp.get(client, "/background?\(CommonsBackdrop.paris)&width=1400&height=200&format=jpeg")
            #expect(image.status == .ok && image.headers[BackdropHeaders.author] == "Jean Photographe & co")
            // A place without assessed files: the assessed ones within the cell's reach, then within 10 km, then the
            // nearest files.
            #expect(commons.assessedSearches.count == 2 && commons.geosearches.count == 1, "three calls for the JSON and the image")
            let search = try #require(commons.geosearches.first)
            for (key, value) in [
                ("action", "query"), ("generator", "geosearch"), ("ggsnamespace", "6"), ("ggsradius", "10000"), ("formatversion", "2"),
                ("prop", "imageinfo|categories"), ("iiprop", "url|size|mime|extmetadata|user|userid"), ("iiurlwidth", "1280"),
            ] {
                #expect(search.query[key] == value, "\(key)")
            }
            let widths = commons.downloads.compactMap { $0.path.split(separator: "/").last.flatMap { Int($0.prefix { $0.isNumber }) } }
            #expect(!widths.isEmpty && widths.allSatisfy(CommonsFile.standardWidths.contains), "standard widths only: \(widths)")
            #expect(widths.contains(1920), "1400 px wide takes the widest")
            let agents = (commons.searches + commons.downloads).map(\.userAgent)
            #expect(
                agents.allSatisfy { $0 == "Backdrop-tests/1.0 (ops@example.org) Backdrop/\(Backdrop.version) AsyncHTTPClient/1" },
                "every call says who calls: \(agents)"
            )
            #expect(!records.all.contains { $0.message.contains("commons.userAgent names only the project") })
        }
    }

    @Test func aCellsFileListServesTheWholeDayAndElsewhereIsStock() async throws {
        let clock = MovableClock(TestApp.epoch)
        let answers = { @Sendable (commons: StandInCommons) -> [StandInCommons.Answer] in
            [.json(commons.searchJSON([File(pageid: 1), File(pageid: 2)])), .json("{\"batchcomplete\":true}")]
        }
        try await CommonsBackdrop.withBackdrop(answers, clock: clock) { commons, client, _ in
            var ids = Set<String>()
            for _ in 0..<4 {  // four windows of one day
                let (_, json) = try await TestApp.answerAndJSON(client, "\(CommonsBackdrop.paris)&width=64&height=64")
                #expect(json["source"] as? String == "commons")
                ids.insert(json["photoId"] as? String ?? "")
                clock.advance(900)
            }
            #expect(commons.geosearches.count == 1 && commons.searches.count == 3, "one search (three calls) a day per cell")
            #expect(ids.count == 2, "the windows still take turns: \(ids)")
            let (_, elsewhere) = try await TestApp.answerAndJSON(client, "lat=-75&lon=120&width=64&height=64")
            #expect(elsewhere["source"] as? String == "stock", "nothing near: stock")
        }
    }

    @Test func aRestartWithinTheDayMakesNoNewSearchAndTheDefaultUserAgentIsWarnedOf() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = MovableClock(TestApp.epoch)
        let answers = { @Sendable (commons: StandInCommons) -> [StandInCommons.Answer] in
            [.json(commons.searchJSON([File(pageid: 1), File(pageid: 2)]))]
        }
        try await StandInCommons.run(answers) { commons in
            for restart in 0..<2 {
                let records = LogRecords()
                let logger = records.logger
                let settings = CommonsBackdrop.settings(commons) {
                    $0.cache.folder = folder.path
                    $0.commons.userAgent = Settings.Commons().userAgent
                }
                try await TestApp.run(settings, clock: clock, logger: logger) { client in
                    let (_, json) = try await TestApp.answerAndJSON(client, "\(CommonsBackdrop.paris)&width=64&height=64&variant=1")
                    #expect(json["source"] as? String == "commons", "after \(restart) restarts")
                }
                #expect(records.all.contains { $0.message.contains("commons.userAgent names only the project") }, "the default is warned of")
                clock.advance(2 * 900)  // a later window of the same day, after a restart
            }
            #expect(commons.searches.count == 3, "the day's list came back from disk: \(commons.searches.count) calls")
            let project = "(https://github.com/backdrop-photos/backdrop; operators: put your contact in commons.userAgent)"
            #expect(commons.searches.first?.userAgent == "Backdrop/\(Backdrop.version) \(project) AsyncHTTPClient/1", "Wikimedia's form")
        }
    }

    @Test(arguments: ["hang", "http429", "malformed", "oversized", "http500", "reset"])
    func everyFaultEndsInAStockPhotoWithinTheDeadline(_ fault: String) async throws {
        let answers = { @Sendable (commons: StandInCommons) -> [StandInCommons.Answer] in
            switch fault {
            case "hang": [.noAnswer]
            case "http429": [.status(429, [("Retry-After", "120")])]
            case "malformed": [.json("{\"query\":{\"pages\":[{\"pageid\":\"x\"")]
            case "oversized": [.oversized]
            case "reset": [.reset]
            default: [.status(500, [])]
            }
        }
        // 2.5 s: at 1.5 s a first request, queued while every suite starts, once passed its deadline before its search
        // reached the stand-in.
        try await CommonsBackdrop.withBackdrop(answers, configure: { $0.photos.requestDeadline = .milliseconds(2500) }) { commons, client, records in
            let start = ContinuousClock.now
            let (answer, json) = try await TestApp.answerAndJSON(client, "\(CommonsBackdrop.paris)&width=64&height=64")
            #expect(answer.status == .ok && json["source"] as? String == "stock", "\(fault)")
            // The deadline (2.5 s) and the stock render (0.4 s alone): 8 s, since the whole suite shares two cores'
            // cooperative threads with it.
            #expect(ContinuousClock.now - start < .seconds(8), "\(fault): within the deadline and a margin")
            // The search outlives a passed deadline: counted once it has reached the stand-in.
            try await waitUntil("the search to reach the stand-in", limit: .seconds(20)) { commons.searches.count >= 1 }
            if fault == "http429" {
                // A request whose deadline passed before Commons's 429 came back (the suite's start can starve it) gave
                // up without reading its Retry-After, and its cell backs off: other places (at most two, each a cell of
                // its own) are asked until one has read it.
                func readIt() -> Bool { records.all.contains { $0.message.contains("Commons search failed") } }
                for place in ["lat=51.5074&lon=-0.1278", "lat=52.52&lon=13.405"] where !readIt() {
                    _ = try await TestApp.answerAndJSON(client, "\(place)&width=64&height=64")
                }
                #expect(readIt(), "a 429 was read")
            }
            let searched = commons.searches.count
            _ = try await TestApp.answerAndJSON(client, "lat=40.4168&lon=-3.7038&width=64&height=64")
            if fault == "http429" {
                #expect(commons.searches.count == searched, "Retry-After: no cell asks Commons again before it")
            }
        }
    }

    @Test func aDeadlinePassedWaitingOnFlickrBacksOffFlickrAloneAndCountsOneFallback() async throws {
        let metrics = BackdropMetrics()
        @Sendable func value(_ series: String) -> Double? { MetricsText.metric(metrics, series) }
        try await StandInFlickr.run({ _ in [.noAnswer] }) { flickr in
            try await StandInCommons.run({ [.json($0.searchJSON([File(pageid: 4242)]))] }) { commons in
                var settings = FlickrBackdrop.settings(flickr) { $0.flickr.totalTimeout = TestApp.patientDeadline }
                settings.photos.sources = [.flickr, .commons, .stock]
                settings.commons.endpoint = commons.endpoint
                settings.commons.extraImageHosts = ["localhost"]
                settings.commons.userAgent = "Backdrop-tests/1.0 (ops@example.org)"
                // Long enough for the second request's Commons search, download and render beside the whole suite (1.5 s was
                // not, once, on two cores); the first request waits it out on the hanging Flickr.
                settings.photos.requestDeadline = .seconds(4)
                try await TestApp.run(settings, metrics: metrics) { client in
                    let (first, _) = try await TestApp.answerAndJSON(client, "\(CommonsBackdrop.paris)&width=64&height=64")
                    #expect(first.headers[BackdropHeaders.source] == "stock", "Flickr never answered: the deadline's fallback")
                    #expect(commons.searches.isEmpty, "the request never reached Commons")
                    #expect(value(#"backdrop_fallbacks_total{kind="stock"}"#) == 1 && value(#"backdrop_fallbacks_total{kind="commons"}"#) == nil)
                    // Flickr, which was waited on, backs off the cell; Commons, never asked, stands in at once.
                    let (second, json) = try await TestApp.answerAndJSON(client, "\(CommonsBackdrop.paris)&width=64&height=64")
                    #expect(second.headers[BackdropHeaders.source] == "commons" && json["photoId"] as? String == "commons-4242")
                    #expect(flickr.searches.count == 1, "Flickr not asked again while it backs off")
                    #expect(value(#"backdrop_fallbacks_total{kind="stock"}"#) == 1, "a Commons photo is no stock fallback")
                }
            }
        }
    }

    @Test func aDeadNetworkIsAskedOnceNotOnEveryRequest() async throws {
        // Nothing listens on the endpoint's port (port 9 on loopback, discard, never served here): the connection is
        // refused, as on a machine with no network.
        var settings = TestApp.settings()
        settings.photos.sources = [.commons, .stock]
        settings.commons.endpoint = "http://127.0.0.1:9/w/api.php"
        settings.commons.connectTimeout = .seconds(1)  // the client retries a refused connection until then
        let metrics = BackdropMetrics()
        try await TestApp.run(settings, metrics: metrics) { client in
            for (index, query) in [CommonsBackdrop.paris, "lat=40.4168&lon=-3.7038", "lat=52.52&lon=13.40"].enumerated() {
                let start = ContinuousClock.now
                let answer = try await TestApp.get(client, "/background?\(query)&width=64&height=64")
                #expect(answer.status == .ok && answer.headers[BackdropHeaders.source] == "stock")
                // The first waits out the connection timeout once; the others do not wait on the network at all.
                #expect(ContinuousClock.now - start < .seconds(index == 0 ? 4 : 1), "request \(index + 1)")
            }
        }
        let calls = metrics.exposition().split(separator: "\n").filter { $0.hasPrefix("backdrop_source_calls_total{") }
        #expect(calls.count == 1 && calls[0].contains("commons") && calls[0].hasSuffix(" 1"), "three cells, one attempt: \(calls)")
    }
}
