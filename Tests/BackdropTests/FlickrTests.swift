import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import Backdrop

@Suite("Flickr photos through a stand-in Flickr on loopback", .serialized)
struct FlickrTests {
    static let small = "width=64&height=64"

    // MARK: - success and the request Flickr sees

    @Test func servesAFlickrPhotoWithAttribution() async throws {
        // What is served, not when: a fresh-clone run beside the whole suite once took over 3 s to download the photo.
        try await FlickrBackdrop.withBackdrop({ FlickrBackdrop.results($0, "photo.jpg") }, configure: FlickrBackdrop.patient) { flickr, client, _ in
            let answer = try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr")
            #expect(answer.headers[BackdropHeaders.photoID] == "flickr-53011111110")
            #expect(answer.headers[BackdropHeaders.author] == "Ana Photographer")
            #expect(answer.headers[BackdropHeaders.title] == "Harbour at dusk")
            #expect(answer.headers[BackdropHeaders.license] == "CC BY 2.0")
            #expect(answer.headers[BackdropHeaders.licenseURL] == "https://creativecommons.org/licenses/by/2.0/")
            #expect(answer.headers[BackdropHeaders.photoURL] == "https://www.flickr.com/photos/12345678@N00/53011111110")
            #expect(flickr.searches.count == 1 && flickr.downloads.count == 1)

            let query = try #require(flickr.searches.first).query
            let cell = Geohash(latitude: 48.8566, longitude: 2.3522, precision: 5).centre
            #expect(query["method"] == "flickr.photos.search" && query["api_key"] == FlickrBackdrop.key)
            #expect(query["format"] == "json" && query["nojsoncallback"] == "1")
            #expect(query["lat"].flatMap(Double.init).map { abs($0 - cell.latitude) < 1e-5 } == true)
            #expect(query["lon"].flatMap(Double.init).map { abs($0 - cell.longitude) < 1e-5 } == true)
            #expect(query["radius"] == "10" && query["radius_units"] == "km")
            #expect(query["license"] == "4,5,7,8,9,10,11,12")
            #expect(query["safe_search"] == "1" && query["content_types"] == "0" && query["media"] == "photos")
            #expect(query["per_page"] == "250")
            let extras = Set((query["extras"] ?? "").split(separator: ",").map(String.init))
            #expect(extras.isSuperset(of: ["license", "owner_name", "path_alias", "url_z", "url_c", "url_l", "url_h", "url_k"]))
            #expect(query["tags"] == nil)
            // No tags: a minimum upload date stops Flickr limiting the geo query to the last 12 hours.
            let minimum = try #require(query["min_upload_date"].flatMap(Int64.init))
            #expect(minimum == Int64(TestApp.epoch.timeIntervalSince1970) - 1825 * 86400)
        }
    }

    @Test func tagsAreSentWithTagModeAny() async throws {
        try await FlickrBackdrop.withBackdrop({ FlickrBackdrop.results($0, "photo.jpg") }, configure: { $0.flickr.tags = "skyline,landscape" }) { flickr, client, _ in
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr")
            let query = try #require(flickr.searches.first).query
            #expect(query["tags"] == "skyline,landscape" && query["tag_mode"] == "any" && query["min_upload_date"] == nil)
        }
    }

    @Test func theDownloadIsTheSmallestSizeThatCovers() async throws {
        // Each size label serves an image of its declared size in a colour of its own: the sharp render shows which one
        // arrived and was used.
        try await FlickrBackdrop.withBackdrop({ FlickrBackdrop.results($0, "sized.jpg") }) { flickr, client, _ in
            for (query, label) in [
                ("\(Self.small)", "z"), ("width=320&height=568", "z"), ("width=640&height=1136", "h"), ("width=500&height=700", "c"),
            ] {
                let answer = try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(query)&blur=0&style=none&crop=centre", source: "flickr")
                let image = try PNGDecoder.decode(answer.body)
                let centre = (image.height / 2 * image.width + image.width / 2) * 3
                let expected = try #require(StandInFlickr.sizedLabels[label]).colour
                let got = (image.pixels[centre], image.pixels[centre + 1], image.pixels[centre + 2])
                #expect(
                    abs(Int(got.0) - Int(expected.0)) < 8 && abs(Int(got.1) - Int(expected.1)) < 8 && abs(Int(got.2) - Int(expected.2)) < 8,
                    "\(query): the url_\(label) image, got \(got)"
                )
            }
        }
        try await FlickrBackdrop.withBackdrop({ FlickrBackdrop.results($0, "photo.jpg") }) { flickr, client, _ in
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr")
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&width=320&height=568", source: "flickr")
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)", source: "flickr")  // 640x1136: no size covers; the largest
            // 64x64 and 320x568 both take url_z, downloaded once and kept; 640x1136 takes the largest, url_h.
            #expect(flickr.downloads.map { $0.query["size"] ?? "" } == ["z", "h"])
            #expect(flickr.searches.count == 1)
        }
    }

    @Test func oneCellAndWindowKeepsOnePhotoAndOneSearch() async throws {
        try await FlickrBackdrop.withBackdrop({ FlickrBackdrop.results($0, "photo1.jpg", "photo2.jpg", "photo3.jpg") }) { flickr, client, _ in
            var ids = Set<String>()
            for blur in ["0", "0.5", "1"] {
                ids.insert(
                    try #require(try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)&blur=\(blur)", source: "flickr").photoID)
                )
            }
            #expect(ids.count == 1)
            #expect(flickr.searches.count == 1)
        }
    }

    @Test func oneHundredConcurrentRequestsMakeOneSearchAndOneDownload() async throws {
        try await FlickrBackdrop.withBackdrop({ FlickrBackdrop.results($0, "photo.jpg") }) { flickr, client, _ in
            try await withThrowingTaskGroup(of: TestApp.Answer.self) { group in
                for index in 0..<100 {
                    group.addTask { try await TestApp.get(client, "/background?\(TestApp.paris)&\(Self.small)&blur=\(index % 2)") }
                }
                for try await answer in group {
                    #expect(answer.status == .ok && answer.headers[BackdropHeaders.source] == "flickr")
                }
            }
            #expect(flickr.searches.count == 1)
            #expect(flickr.downloads.count == 1)
        }
    }

    // MARK: - Flickr's quirks

    @Test func quirksOfRealAnswersAreRead() async throws {
        try await FlickrBackdrop.withBackdrop({ flickr in
            var a = flickr.result(id: "1", image: "photo-a.jpg", ownerName: nil, pathAlias: nil)
            a.numbersAsStrings = true
            a.sizes.removeAll { $0.0 == "c" || $0.0 == "h" }  // url_c and url_h missing
            var b = flickr.result(id: "2", image: "photo-b.jpg", pathAlias: "ana_ph")
            b.sizes.removeAll { $0.0 != "z" }  // only 640 px: not usable
            return [.json(StandInFlickr.searchJSON([a, b], totalAsString: true))]
        }) { flickr, client, _ in
            let answer = try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr")
            #expect(answer.photoID == "flickr-1")
            #expect(answer.headers[BackdropHeaders.author] == "12345678@N00")  // no owner name: the owner id
            #expect(answer.headers[BackdropHeaders.photoURL] == "https://www.flickr.com/photos/12345678@N00/1")
        }
        let parsed = try FlickrSearchResponse.parse(
            Array(
                StandInFlickr.searchJSON([
                    {
                        var r = StandInFlickr.Result(id: "9", pathAlias: "ana_ph")
                        r.sizes = [("l", "https://live.staticflickr.com/1/9_l.jpg", 1024, 768)]
                        return r
                    }(),
                    {
                        var r = StandInFlickr.Result(id: "10", license: 6)
                        r.sizes = [("l", "https://live.staticflickr.com/1/10_l.jpg", 1024, 768)]
                        return r
                    }(),
                ]).utf8
            ),
            allowedLicenses: [4, 6]
        )
        #expect(parsed.photos.map(\.id) == ["9"])  // NoDerivs (6) is never used, even when configured
        #expect(parsed.photos.first?.pageURL == "https://www.flickr.com/photos/ana_ph/9")
        #expect(parsed.total == 2)
        // Flickr sends `total` as a string or, at times, as a number: both are read.
        let numeric = try FlickrSearchResponse.parse(
            Array(
                StandInFlickr.searchJSON(
                    [
                        {
                            var r = StandInFlickr.Result(id: "9")
                            r.sizes = [("l", "https://live.staticflickr.com/1/9_l.jpg", 1024, 768)]
                            return r
                        }()
                    ],
                    totalAsString: false
                ).utf8
            ),
            allowedLicenses: [4]
        )
        #expect(numeric.total == 1 && numeric.photos.map(\.id) == ["9"])
    }

    @Test func aJSONPWrapperIsUnwrapped() async throws {
        try await FlickrBackdrop.withBackdrop({ flickr in
            [.json("jsonFlickrApi(" + StandInFlickr.searchJSON([flickr.result(image: "photo.jpg")]) + ");\n")]
        }) { _, client, _ in
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr")
        }
    }

    /// A search answer the stand-in can fail with, by name.
    static func failingSearch(_ name: String, _ flickr: StandInFlickr) -> FlickrBackdrop.Answer {
        switch name {
        case "code105": .json(StandInFlickr.failJSON(code: 105, message: "Service currently unavailable"))
        case "code201": .json(StandInFlickr.failJSON(code: 201, message: "Sorry, the Flickr API service is not currently available."))
        case "code0": .json(StandInFlickr.failJSON(code: 0, message: "Sorry, the Flickr API service is not currently available."))
        case "http429": .status(429, "Too Many Requests")
        case "http500": .status(500, "<html>Internal Server Error</html>")
        case "malformed": .json("{\"photos\":{\"page\":1,\"photo\":[{\"id\":")
        case "html": .json("<!DOCTYPE html><html><body>Flickr is down</body></html>")
        case "code999": .json(StandInFlickr.failJSON(code: 999, message: "Unknown"))
        case "trickle": .trickle(StandInFlickr.searchJSON([flickr.result()]))
        default: .noAnswer
        }
    }

    // MARK: - one deadline per request

    /// Every fault the stand-in can produce, searches and downloads alike: each request is a 200 within the deadline
    /// plus a second, however long the upstream would hold it.
    static let upstreamFaults: [String] = [
        "search:code105", "search:code0", "search:http429", "search:http500", "search:malformed", "search:html", "search:noAnswer",
        "search:code999", "search:trickle",
        "image:truncated.jpg", "image:huge.jpg", "image:image.png", "image:page.html", "image:oversized.jpg",
        "image:redirect-loopback.jpg", "image:redirect-elsewhere.jpg", "image:redirect-loop.jpg", "image:no-answer.jpg",
        "image:server-error.jpg", "image:missing.jpg", "image:trickle.jpg",
    ]

    @Test("every upstream fault is answered within the request deadline", arguments: Self.upstreamFaults)
    func everyUpstreamFaultIsAnsweredWithinTheDeadline(_ fault: String) async throws {
        let (kind, name) = (fault.split(separator: ":")[0], String(fault.split(separator: ":")[1]))
        try await FlickrBackdrop.withBackdrop(
            { flickr in
                guard kind == "search" else {
                    // Both results fail the same way: the replacement photo too, so the request needs its fallback.
                    return [
                        .json(
                            StandInFlickr.searchJSON([
                                flickr.result(id: "53011111110", image: name),
                                flickr.result(id: "53011111111", image: name),
                            ])
                        )
                    ]
                }
                return [Self.failingSearch(name, flickr)]
            },
            configure: { settings in
                // Per-call timeouts far beyond the deadline: only the request's deadline bounds the wait.
                settings.flickr.totalTimeout = TestApp.patientDeadline
                // 2.5 s: at 1.5 s a first request, queued while every suite starts, once reached its deadline before
                // its search was even sent (no fault met).
                settings.photos.requestDeadline = .milliseconds(2500)
            }
        ) { flickr, client, records in
            for attempt in 0..<2 {
                let start = ContinuousClock.now
                let answer = try await TestApp.get(client, "/background?\(TestApp.paris)&\(Self.small)")
                let elapsed = ContinuousClock.now - start
                #expect(answer.status == .ok, "\(fault), request \(attempt)")
                // The promise: the fallback at once after the 2.5-s deadline. The bound allows 3 s more for a 64x64 stock
                // render and scheduling on a loaded two-core machine (other suites run beside this one); the 12-s
                // per-call timeouts would take far longer, so a deadline that did not fire still fails here.
                #expect(elapsed < .milliseconds(5500), "\(fault), request \(attempt): \(elapsed)")
                #expect(answer.headers[BackdropHeaders.source] == "stock", "\(fault)")
                #expect(answer.headers[.cacheControl] == "public, max-age=60", "\(fault)")
                #expect(try PNGDecoder.decode(answer.body).width == 64)
            }
            #expect(flickr.searches.count == 1, "\(fault): the cell backs off after a failure or a passed deadline")
            // Faults that hang are ended by the deadline itself (logged and counted), not by a per-call timeout.
            if ["noAnswer", "trickle", "no-answer"].contains(where: { name.contains($0) }) {
                #expect(records.all.contains { $0.message.contains("upstream deadline passed") }, "\(fault)")
            }
            let info = try await TestApp.get(client, "/background.json?\(TestApp.paris)")
            #expect(info.status == .ok)
        }
    }

    @Test func callsDeadlinesFallbacksAndTheBudgetAreCounted() async throws {
        let metrics = BackdropMetrics()
        @Sendable func value(_ series: String) -> Double? { MetricsText.metric(metrics, series) }
        try await FlickrBackdrop.withBackdrop(
            { flickr in
                // Paris: a transient failure; Lisbon: a search that never answers; Berlin: results.
                [.json(StandInFlickr.failJSON(code: 105, message: "Service currently unavailable")), .noAnswer] + FlickrBackdrop.results(flickr, "photo.jpg")
            },
            configure: { settings in
                settings.flickr.totalTimeout = TestApp.patientDeadline
                settings.photos.requestDeadline = .seconds(1)
                settings.flickr.callsPerHour = 100
            },
            metrics: metrics
        ) { _, client, _ in
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "stock")
            #expect(value(#"backdrop_source_calls_total{source="flickr",outcome="transient"}"#) == 1)
            #expect(value(#"backdrop_fallbacks_total{kind="stock"}"#) == 1)
            #expect(value("backdrop_upstream_deadlines_total") == nil || value("backdrop_upstream_deadlines_total") == 0)
            try await FlickrBackdrop.expectBackground(client, "lat=38.72&lon=-9.14&\(Self.small)", source: "stock")
            #expect(value("backdrop_upstream_deadlines_total") == 1, "the search that never answered ran into the deadline")
            #expect(value(#"backdrop_fallbacks_total{kind="stock"}"#) == 2)
            try await FlickrBackdrop.expectBackground(client, "lat=52.52&lon=13.40&\(Self.small)", source: "flickr")
            #expect(value(#"backdrop_source_calls_total{source="flickr",outcome="ok"}"#) == 1)
            #expect(value(#"backdrop_source_budget_tokens{source="flickr"}"#) == 97, "three calls taken from a budget of 100")
        }
    }

    @Test func theDeadlineCoversTheReplacementDownloadToo() async throws {
        // Each download hangs for less than the deadline, both together for more: the request still gets its fallback in time.
        try await FlickrBackdrop.withBackdrop(
            { flickr in
                [
                    .json(
                        StandInFlickr.searchJSON([
                            flickr.result(id: "53011111110", image: "trickle.jpg"),
                            flickr.result(id: "53011111111", image: "trickle.jpg"),
                        ])
                    )
                ]
            },
            configure: { settings in
                settings.flickr.totalTimeout = .seconds(1)
                settings.photos.requestDeadline = .milliseconds(1500)
            }
        ) { flickr, client, records in
            let start = ContinuousClock.now
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "stock")
            // The deadline fired (logged below) before the two 1-s downloads could both run out; 3 s of margin beyond
            // the 1.5-s deadline for scheduling on a loaded machine.
            #expect(ContinuousClock.now - start < .milliseconds(4500))
            #expect(flickr.downloads.count == 2, "the first download timed out and the replacement was started")
            #expect(records.all.contains { $0.message.contains("upstream deadline passed") })
        }
    }

    // MARK: - failures degrade to stock

    @Test(
        "a failing search serves stock",
        arguments: [
            "code105", "code0", "code201", "http429", "http500", "malformed", "html", "noAnswer", "code999",
        ]
    )
    func failingSearchServesStock(_ failure: String) async throws {
        try await FlickrBackdrop.withBackdrop({ flickr in [Self.failingSearch(failure, flickr)] }, configure: FlickrBackdrop.quick) { flickr, client, records in
            let start = ContinuousClock.now
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "stock")
            #expect(ContinuousClock.now - start < .seconds(6), "within the deadline")
            #expect(flickr.searches.count == 1)
            #expect(flickr.downloads.isEmpty)
            // The cell backs off: the next request does not call Flickr again at once.
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "stock")
            #expect(flickr.searches.count == 1)
            #expect(records.all.contains { $0.message.contains("Flickr search failed") })
            // The JSON says the same: a stock photo stands in.
            let info = try await TestApp.get(client, "/background.json?\(TestApp.paris)&\(Self.small)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(info.body)) as? [String: Any])
            #expect(info.status == .ok && json["source"] as? String == "stock", "\(json["source"] ?? "none")")
        }
    }

    @Test func anInvalidKeyIsLoggedOnceAndRetriedOnceAMinute() async throws {
        let clock = MovableClock(TestApp.epoch)
        try await FlickrBackdrop.withBackdrop(
            { flickr in
                [
                    .json(StandInFlickr.failJSON(code: 100, message: "Invalid API Key (Key has invalid format)")),
                    .json(StandInFlickr.failJSON(code: 100, message: "Invalid API Key (Key has invalid format)")),
                ]
                    + FlickrBackdrop.results(flickr, "photo.jpg")
            },
            clock: clock
        ) { flickr, client, records in
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "stock")
            try await FlickrBackdrop.expectBackground(client, "lat=10&lon=10&\(Self.small)", source: "stock")
            try await FlickrBackdrop.expectBackground(client, "lat=20&lon=20&\(Self.small)", source: "stock")
            #expect(flickr.searches.count == 1, "no calls within the minute after code 100")
            clock.advance(61)
            try await FlickrBackdrop.expectBackground(client, "lat=30&lon=30&\(Self.small)", source: "stock")
            #expect(flickr.searches.count == 2)
            try await FlickrBackdrop.expectBackground(client, "lat=40&lon=40&\(Self.small)", source: "stock")
            #expect(flickr.searches.count == 2)
            clock.advance(61)
            try await FlickrBackdrop.expectBackground(client, "lat=50&lon=50&\(Self.small)", source: "flickr")
            #expect(flickr.searches.count == 3)
            #expect(records.all.filter { $0.message.contains("rejected the API key") }.count == 1)
        }
    }

    @Test func emptyCellsWidenThenDropTagsThenServeStockAndAreRemembered() async throws {
        try await FlickrBackdrop.withBackdrop({ _ in [.json(StandInFlickr.searchJSON([]))] }, configure: { $0.flickr.tags = "city" }) { flickr, client, _ in
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "stock")
            #expect(flickr.searches.map { $0.query["radius"] ?? "" } == ["10", "20", "32", "32"])
            #expect(flickr.searches.map { $0.query["tags"] } == ["city", "city", "city", nil])
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)&blur=0", source: "stock")
            #expect(flickr.searches.count == 4, "an empty cell is remembered for the window")
        }
        try await FlickrBackdrop.withBackdrop({ flickr in [.json(StandInFlickr.searchJSON([]))] + FlickrBackdrop.results(flickr, "photo.jpg") }) { flickr, client, _ in
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr")
            #expect(flickr.searches.map { $0.query["radius"] ?? "" } == ["10", "20"])
        }
    }

    @Test(
        "a bad download tries another result once, then stock",
        arguments: [
            "truncated.jpg", "huge.jpg", "image.png", "page.html", "oversized.jpg", "redirect-loopback.jpg", "redirect-elsewhere.jpg",
            "redirect-loop.jpg", "no-answer.jpg", "server-error.jpg", "missing.jpg",
        ]
    )
    func badDownloads(_ image: String) async throws {
        // First the bad photo alone: it is tried, then stock.
        try await FlickrBackdrop.withBackdrop({ FlickrBackdrop.results($0, image) }, configure: FlickrBackdrop.quick) { flickr, client, _ in
            let start = ContinuousClock.now
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "stock")
            #expect(ContinuousClock.now - start < .seconds(9), "within the deadline")
            #expect(!flickr.downloads.contains { $0.path.contains("after-redirect") }, "a refused redirect is never followed")
            // The cell stays on stock for the window without trying again.
            let downloads = flickr.downloads.count
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)&blur=0", source: "stock")
            #expect(flickr.downloads.count == downloads)
        }
        // With a good alternative, the alternative is served (whichever of the two the cell's hash picks first).
        try await FlickrBackdrop.withBackdrop({ FlickrBackdrop.results($0, image, "photo-good.jpg") }, configure: FlickrBackdrop.quick) { _, client, _ in
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr")
        }
    }

    @Test func anAllowedRedirectIsFollowed() async throws {
        try await FlickrBackdrop.withBackdrop({ FlickrBackdrop.results($0, "redirect-allowed.jpg") }) { flickr, client, _ in
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr")
            #expect(flickr.downloads.map(\.path) == ["/img/redirect-allowed.jpg", "/img/photo-after-redirect.jpg"])
        }
    }

    @Test func theQuotaServesStockWithoutCallingFlickr() async throws {
        try await FlickrBackdrop.withBackdrop({ FlickrBackdrop.results($0, "photo.jpg") }, configure: { $0.flickr.callsPerHour = 1 }) { flickr, client, _ in
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr")
            try await FlickrBackdrop.expectBackground(client, "lat=10&lon=10&\(Self.small)", source: "stock")
            #expect(flickr.searches.count == 1)
        }
    }

    // MARK: - attribution

    @Test func headersAreCleanedAndEncoded() async throws {
        try await FlickrBackdrop.withBackdrop({ flickr in
            [
                .json(
                    StandInFlickr.searchJSON([flickr.result(image: "photo.jpg", title: "Evil\r\nSet-Cookie: stolen=1", ownerName: "Zoë Ångström 東京")])
                )
            ]
        }) { _, client, _ in
            let answer = try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr")
            #expect(answer.headers[BackdropHeaders.title] == "Evil Set-Cookie: stolen=1", "a credit is one line: CR LF is one space")
            #expect(answer.headers[.setCookie] == nil)
            let author = try #require(answer.headers[BackdropHeaders.author])
            #expect(author.unicodeScalars.allSatisfy { $0.isASCII })
            #expect(author.removingPercentEncoding == "Zoë Ångström 東京")
        }
    }

    @Test func backgroundJSONDescribesThePhoto() async throws {
        try await FlickrBackdrop.withBackdrop({ FlickrBackdrop.results($0, "photo.jpg") }) { flickr, client, _ in
            let answer = try await TestApp.get(client, "/background.json?\(TestApp.paris)")
            #expect(answer.status == .ok)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
            #expect(json["source"] as? String == "flickr")
            #expect(json["photoId"] as? String == "flickr-53011111110")
            #expect(json["owner"] as? String == "Ana Photographer")
            #expect(json["photoPage"] as? String == "https://www.flickr.com/photos/12345678@N00/53011111110")
            #expect((json["license"] as? [String: String])?["name"] == "CC BY 2.0")
            #expect(json["cell"] as? String == "u09tv")
            // 08:07 UTC on 15 January 2027 in the window's middle: the sun 3° over Paris (astral: 3.03°), risen an hour ago.
            #expect(json["phase"] as? String == "golden")
            #expect((json["window"] as? [String: Any])?["secondsLeft"] as? Int == 700)
            #expect((json["modified"] as? String)?.contains("modified") == true)
            #expect(json["notice"] as? String == "This product uses the Flickr API but is not endorsed or certified by SmugMug, Inc.")
            let images = try #require(json["images"] as? [String: Any])
            #expect(images["sharp"] as? String == "/background?cell=u09tv&blur=0&format=png")
            // The URLs it gives are served, and show the same photo.
            let sharp = try await TestApp.get(client, try #require(images["sharp"] as? String))
            #expect(sharp.status == .ok && sharp.photoID == "flickr-53011111110")
            #expect(flickr.searches.count == 1)
            let stock = try await TestApp.get(client, "/background.json")
            let stockJSON = try #require(try JSONSerialization.jsonObject(with: Data(stock.body)) as? [String: Any])
            #expect(stock.status == .ok && stockJSON["source"] as? String == "stock" && stockJSON["notice"] == nil)
            #expect(stockJSON["phase"] == nil, "no place, no phase")
            #expect(try await TestApp.get(client, "/background.json?lat=1").json["parameter"] == "lon")
            #expect(try await TestApp.get(client, "/background.json?lat=1&lon=2&blur=1").json["parameter"] == "blur")
        }
    }

    @Test func theKeyAndSecretNeverLeak() async throws {
        try await FlickrBackdrop.withBackdrop({ flickr in
            [.json(StandInFlickr.failJSON(code: 105, message: "Service currently unavailable"))] + FlickrBackdrop.results(flickr, "truncated.jpg")
        }) { _, client, records in
            var seen = ""
            for target in [
                "/background?\(TestApp.paris)&\(Self.small)", "/background?lat=10&lon=10&\(Self.small)", "/background?lat=abc&lon=1",
                "/background?lat=20&lon=20&\(Self.small)", "/background.json?lat=30&lon=30&\(Self.small)", "/background.json?lat=x",
                "/metrics", "/health",
            ] {
                let answer = try await TestApp.get(client, target)
                seen += answer.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
                seen += String(decoding: answer.body.prefix(1 << 20).filter { $0 < 128 }, as: UTF8.self)
            }
            seen += records.all.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
            #expect(!seen.contains(FlickrBackdrop.key))
        }
    }

    // MARK: - with the disk cache

    @Test func aRestartKeepsTheCellsPhotoWithoutANewSearchOrDownload() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await StandInFlickr.run({ FlickrBackdrop.results($0, "photo1.jpg", "photo2.jpg", "photo3.jpg") }) { flickr in
            let settings = FlickrBackdrop.settings(flickr) { $0.cache.folder = folder.path }
            let clock = FixedClock(date: TestApp.epoch)
            let chosen = Mutex<String?>(nil)
            try await TestApp.run(settings, clock: clock) { client in
                let answer = try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr")
                chosen.withLock { $0 = answer.photoID }
            }
            #expect(flickr.searches.count == 1 && flickr.downloads.count == 1)
            try await TestApp.run(settings, clock: clock) { client in
                let answer = try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)&blur=0.2", source: "flickr")
                #expect(answer.photoID == chosen.withLock { $0 })
            }
            #expect(flickr.searches.count == 1, "no new search in the same window after a restart")
            #expect(flickr.downloads.count == 1, "the source photo came from disk")
        }
    }

    @Test func aFailingFlickrServesTheCellsEarlierPhotoMarkedStaleThenRecovers() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = MovableClock(TestApp.epoch)
        try await FlickrBackdrop.withBackdrop(
            { flickr in
                FlickrBackdrop.results(flickr, "photo1.jpg", "photo2.jpg") + [.status(500, "down")] + FlickrBackdrop.results(flickr, "photo3.jpg")
            },
            clock: clock,
            configure: { $0.cache.folder = folder.path }
        ) { flickr, client, _ in
            let fresh = try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr")
            clock.advance(900)  // the next window: Flickr now fails
            let stale = try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr; stale")
            #expect(stale.photoID == fresh.photoID)
            #expect(stale.headers[.cacheControl] == "public, max-age=60")
            #expect(flickr.searches.count == 2 && flickr.downloads.count == 1)
            let info = try await TestApp.get(client, "/background.json?\(TestApp.paris)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(info.body)) as? [String: Any])
            #expect(json["source"] as? String == "flickr; stale" && info.headers[BackdropHeaders.source] == "flickr; stale")
            #expect(flickr.searches.count == 2, "still backing off")
            clock.advance(31)  // past the failing cell's back-off: Flickr answers again
            let recovered = try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr")
            #expect(recovered.photoID == "flickr-53011111110")
            #expect(flickr.searches.count == 3)
        }
    }

    @Test func overALiveConnectionStandInsGiveWayToTheRecoveredPhoto() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = MovableClock(TestApp.epoch)
        try await FlickrBackdrop.withBackdrop(
            { flickr in
                FlickrBackdrop.results(flickr, "photo1.jpg", "photo2.jpg") + [.status(500, "down")] + FlickrBackdrop.results(flickr, "photo3.jpg")
            },
            clock: clock,
            configure: { $0.cache.folder = folder.path },
            live: true
        ) { flickr, client, _ in
            let port = try #require(client.port)
            let target = "/background?\(TestApp.paris)"  // the default size: large enough to be sent from its file
            let fresh = try await LiveServer.get(port, target)
            #expect(try await LiveServer.get(port, target).body == fresh.body)
            #expect(try await LiveServer.counter(port, "backdrop_responses_sendfile_total") == 2, "both sent from the cache file")
            clock.advance(900)  // the next window: Flickr now fails
            for _ in 0..<2 {
                let stale = try await LiveServer.get(port, target)
                #expect(stale.header("x-backdrop-source") == "flickr; stale" && stale.header("cache-control") == "public, max-age=60")
            }
            clock.advance(31)  // past the failing cell's back-off: Flickr answers again
            let recovered = try await LiveServer.get(port, target)
            #expect(recovered.header("x-backdrop-source") == "flickr" && recovered.header("x-backdrop-photo-id") == "flickr-53011111110")
            #expect(flickr.searches.count == 3)
        }
    }

    @Test func aStalePhotoOlderThanTheLimitIsNotServed() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = MovableClock(TestApp.epoch)
        try await FlickrBackdrop.withBackdrop(
            { flickr in FlickrBackdrop.results(flickr, "photo.jpg") + [.status(500, "down")] },
            clock: clock,
            configure: {
                $0.cache.folder = folder.path
                $0.cache.maxStale = .seconds(3600)
            }
        ) { _, client, _ in
            try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "flickr")
            clock.advance(2 * 3600)
            let answer = try await FlickrBackdrop.expectBackground(client, "\(TestApp.paris)&\(Self.small)", source: "stock")
            #expect(answer.headers[.cacheControl] == "public, max-age=60")
        }
    }

    @Test func imageHostPolicy() async throws {
        let policy = ImageHostPolicy(extraHosts: ["mirror.test"]) { host in
            ["live.staticflickr.com": ["151.101.1.7"], "evil.staticflickr.com": ["127.0.0.1"], "lan.staticflickr.com": ["192.168.1.4"]][host] ?? []
        }
        try await policy.check(try #require(WebURL("https://live.staticflickr.com/65535/1_a_b.jpg")))
        try await policy.check(try #require(WebURL("http://mirror.test:8080/x.jpg")))
        for refused in [
            "http://live.staticflickr.com/x.jpg", "https://evil.staticflickr.com/x.jpg", "https://lan.staticflickr.com/x.jpg",
            "https://staticflickr.com.evil.example/x.jpg", "https://127.0.0.1/x.jpg", "https://nowhere.staticflickr.com/x",
        ] {
            await #expect(throws: DownloadError.self, "\(refused)") { try await policy.check(try #require(WebURL(refused))) }
        }
        // Not web URLs as a browser reads them: never fetched at all.
        for unread in [
            "file:///etc/passwd", "https://evil.example\\@live.staticflickr.com/x.jpg", "https://user@live.staticflickr.com/x.jpg",
            "https://live.staticflickr.com\\.evil.example/x.jpg", "https://live.staticflickr.com:99999/x.jpg", "https://[::1]/x.jpg",
            "https://live staticflickr.com/x.jpg", "javascript:alert(1)",
        ] {
            #expect(WebURL(unread) == nil, "\(unread)")
        }
        for address in [
            "127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.0.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
            "::1", "::", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "ff02::1", "224.0.0.1", "not-an-address",
        ] {
            #expect(!ImageHostPolicy.isPublic(address), "\(address)")
        }
        for address in ["151.101.1.7", "8.8.8.8", "172.32.0.1", "2a04:4e42::311", "::ffff:8.8.8.8"] {
            #expect(ImageHostPolicy.isPublic(address), "\(address)")
        }
    }
}
