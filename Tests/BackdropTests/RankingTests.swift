import Foundation
import Testing

@testable import Backdrop

/// The ranking of a cell's candidates (no network), what a candidate shows of the sky, and the ranking through the
/// stand-in Flickr: the search asks for what it needs, the sky at the place decides.
@Suite("Ranking")
struct RankingTests {
    @Test func theSkyAtThePlaceDecidesFirst() {
        let candidates = [
            RankingSamples.candidate("night", shown: .night, order: 0), RankingSamples.candidate("day", shown: .day, order: 1),
            RankingSamples.candidate("dusk", shown: .dusk, order: 2), RankingSamples.candidate("unknown", order: 3),
        ]
        func ranked(_ phase: SunPhase) -> [String] { PhotoRanking(phase: phase).rank(candidates).map { candidates[$0].id } }
        #expect(ranked(.day) == ["day", "unknown", "dusk", "night"], "at noon a day photo wins; undated photos are mostly day ones")
        #expect(ranked(.night) == ["night", "unknown", "dusk", "day"], "at night a night photo wins; a day photo comes last")
        #expect(ranked(.dusk) == ["dusk", "day", "unknown", "night"], "golden light: the golden photo, then its neighbours")
        #expect(ranked(.twilight) == ["night", "dusk", "unknown", "day"])
    }

    @Test func indoorsOnlyWhenNothingElseIsLeft() {
        let candidates = [
            RankingSamples.candidate("indoors", shown: .day, setting: .indoors, order: 0), RankingSamples.candidate("said", shown: .day, setting: .outdoors, order: 2),
            RankingSamples.candidate("unsaid", shown: .day, order: 1), RankingSamples.candidate("night-outdoors", shown: .night, setting: .outdoors, order: 3),
        ]
        let ranked = PhotoRanking(phase: .day).rank(candidates).map { candidates[$0].id }
        #expect(ranked == ["said", "unsaid", "night-outdoors", "indoors"], "even a photo of the wrong sky beats an indoor one")
    }

    @Test func thenTheFitThenAccuracyThenTheSourcesOrder() {
        let candidates = [
            RankingSamples.candidate("region", accuracy: 6, order: 0), RankingSamples.candidate("street", accuracy: 16, order: 90),
            RankingSamples.candidate("city-late", accuracy: 11, order: 120), RankingSamples.candidate("city-early", accuracy: 12, order: 10),
            RankingSamples.candidate("city-early-wide", accuracy: 11, order: 5, size: (2000, 1000)),
        ]
        let ranked = PhotoRanking(phase: .day).rank(candidates).map { candidates[$0].id }
        #expect(
            ranked == ["street", "city-early", "city-late", "region", "city-early-wide"],
            "a wide photo on a portrait screen comes after the others of its sky: \(ranked)"
        )
    }

    @Test(arguments: [
        (1920, 1080, ScreenShape.landscape), (390, 844, .portrait), (1000, 1000, .square), (800, 1000, .square), (799, 1000, .portrait),
        (1250, 1000, .square), (1251, 1000, .landscape), (2560, 1080, .landscape), (1024, 768, .landscape), (768, 1024, .portrait),
    ])
    func aScreensClassIsItsAspectsBand(width: Int, height: Int, shape: ScreenShape) {
        #expect(ScreenShape(width: width, height: height) == shape)
    }

    @Test func aLandscapeScreenNeverGetsAPortraitPhotoWhileALandscapeOneOfTheSameStandingExists() {
        // Portrait photos with every advantage after the fit (placed to a street, Flickr's first), landscape ones
        // placed to a city, late in the source's order; and a landscape photo of the wrong sky.
        let portraits = (0..<6).map { RankingSamples.candidate("portrait\($0)", shown: .day, accuracy: 16, order: $0, size: (1365, 2048)) }
        let landscapes = (0..<3).map { RankingSamples.candidate("landscape\($0)", shown: .day, accuracy: 11, order: 200 + $0, size: (2048, 1365)) }
        let night = RankingSamples.candidate("landscape-night", shown: .night, accuracy: 16, order: 0, size: (2048, 1365))
        let candidates = portraits + landscapes + [night]
        for window in 0..<50 {
            let wide = PhotoRanking(phase: .day, shape: .landscape).choose(candidates, key: "u09tv", window: Int64(window)).map { candidates[$0].id }
            #expect(wide[0].hasPrefix("landscape") && wide[0] != "landscape-night", "window \(window): \(wide)")
            #expect(Array(wide.prefix(3)).allSatisfy { $0.hasPrefix("landscape") }, "the landscape ones, then the rest: \(wide)")
            #expect(wide.last == "landscape-night", "the sky still comes first: \(wide)")
            let tall = PhotoRanking(phase: .day, shape: .portrait).choose(candidates, key: "u09tv", window: Int64(window)).map { candidates[$0].id }
            #expect(tall[0].hasPrefix("portrait"), "window \(window): a phone gets a portrait photo: \(tall)")
        }
        // A square screen: a 3:2 photo keeps 2/3 of itself, a 16:9 one 56 %.
        let square = [RankingSamples.candidate("sixteen-nine", order: 0, size: (1920, 1080)), RankingSamples.candidate("three-two", order: 90, size: (2100, 1400))]
        #expect(PhotoRanking(phase: .day, shape: .square).rank(square).map { square[$0].id } == ["three-two", "sixteen-nine"])
    }

    @Test func panoramasRankLastAndNoPhotoIsEnlargedPastTwiceWhileALargerOneExists() {
        let candidates = [
            RankingSamples.candidate("panorama", shown: .day, setting: .outdoors, order: 0, size: (6000, 2000)),
            RankingSamples.candidate("small", shown: .day, setting: .outdoors, order: 1, size: (800, 533)),
            RankingSamples.candidate("large", shown: .day, order: 300, size: (2048, 1365)),
            RankingSamples.candidate("indoors", shown: .day, setting: .indoors, order: 2, size: (2048, 1365)),
            RankingSamples.candidate("night", shown: .night, order: 3, size: (2048, 1365)),
        ]
        let ranked = PhotoRanking(phase: .day, shape: .landscape).rank(candidates).map { candidates[$0].id }
        #expect(ranked == ["large", "small", "night", "indoors", "panorama"], "\(ranked)")
        #expect(ScreenShape.landscape.enlargement(width: 800, height: 533) > PhotoRanking.largestEnlargement)
        #expect(
            ScreenShape.landscape.enlargement(width: 1024, height: 683) <= PhotoRanking.largestEnlargement,
            "Flickr's 1024-px large size is enough"
        )
    }

    @Test func noOwnerTakesMoreThanTwoOfTheBest() {
        let burst = (0..<6).map { RankingSamples.candidate("burst\($0)", owner: "one", shown: .day, order: $0) }
        let others = (0..<3).map { RankingSamples.candidate("other\($0)", shown: .day, order: 10 + $0) }
        let candidates = burst + others
        let ranked = PhotoRanking(phase: .day).rank(candidates).map { candidates[$0].id }
        #expect(Array(ranked.prefix(5)) == ["burst0", "burst1", "other0", "other1", "other2"], "\(ranked)")
        for window in 0..<50 {
            let order = PhotoRanking(phase: .day).choose(candidates, key: "u09tv", window: Int64(window))
            #expect(order.prefix(5).filter { candidates[$0].owner == "one" }.count <= 2, "window \(window)")
            #expect(Set(order).count == candidates.count, "every candidate once")
        }
    }

    /// Issue 50: a day goes through the whole pool before any repeats, never the previous window's photo, the same in
    /// every process; one owner's photos taken minutes apart count once.
    @Test func windowsGoThroughTheWholePoolBeforeAnyRepeats() {
        let candidates = (0..<20).map { RankingSamples.candidate("p\($0)", shown: $0 < 8 ? .night : .day, order: $0) }
        let start: Int64 = 1_971_000  // a window in 2026, at a pass boundary of 8
        var previous: String?
        for window in start..<(start + 3 * 96) {
            let first = candidates[PhotoRanking(phase: .night).choose(candidates, key: "u09tv", window: window)[0]]
            #expect(first.shown == .night, "only the right sky: \(first.id)")
            #expect(first.id != previous, "window \(window) repeats the previous one's photo")
            previous = first.id
        }
        for pass in 0..<36 {
            let windows = (0..<8).map { start + Int64(pass * 8 + $0) }
            let shown = Set(windows.map { candidates[PhotoRanking(phase: .night).choose(candidates, key: "u09tv", window: $0)[0]].id })
            #expect(shown.count == 8, "pass \(pass) shows every night photo once: \(shown.sorted())")
        }
        #expect(
            PhotoRanking(phase: .night).choose(candidates, key: "a", window: 7) == PhotoRanking(phase: .night).choose(candidates, key: "a", window: 7)
        )
    }

    @Test func noPoolOfTwoOrMoreRepeatsThePreviousWindowAnywhere() {
        var repeats = 0
        var changes = 0
        for count in 2...16 {
            for cell in 0..<60 {
                var previous = PhotoChoice.index(key: "cell\(cell)", window: 1_970_000, count: count)
                for window in Int64(1_970_001)...Int64(1_970_000 + 96) {
                    let next = PhotoChoice.index(key: "cell\(cell)", window: window, count: count)
                    repeats += next == previous ? 1 : 0
                    changes += 1
                    previous = next
                }
            }
        }
        #expect(changes == 15 * 60 * 96 && repeats == 0, "\(repeats) of \(changes) window changes repeat the photo")
    }

    @Test func oneOwnersPhotosMinutesApartAreOneTurn() {
        func photo(_ id: String, owner: String, taken: Double) -> RankingCandidate {
            var candidate = RankingSamples.candidate(id, owner: owner, shown: .day)
            candidate.taken = taken
            return candidate
        }
        // Two of one owner 3 minutes apart (one scene), two of another 3 hours apart (two scenes), one more.
        let candidates = [
            photo("a1", owner: "a", taken: 1_000_000), photo("a2", owner: "a", taken: 1_000_180),
            photo("b1", owner: "b", taken: 1_000_000), photo("b2", owner: "b", taken: 1_010_800), photo("c", owner: "c", taken: 0),
        ]
        let chosen = Set((0..<40).map { candidates[PhotoRanking(phase: .day).choose(candidates, key: "u09tv", window: Int64($0))[0]].id })
        #expect(chosen == ["a1", "b1", "b2", "c"], "\(chosen.sorted())")
        #expect(PhotoRanking.isNearDuplicate(candidates[0], candidates[1]) && !PhotoRanking.isNearDuplicate(candidates[2], candidates[3]))
        #expect(!PhotoRanking.isNearDuplicate(RankingSamples.candidate("x", owner: "a"), RankingSamples.candidate("y", owner: "a")), "no clock: not known")
    }

    @Test func whatACandidateShows() throws {
        // Paris, 15 January: the camera's clock is civil time there (CET, UTC+1): noon is day, 23:30 night, and 16:45
        // golden (the sun sets at 17:20 CET; read as solar time, 16:45 was 16:36 UTC, 35 minutes too late).
        #expect(ShownPhase.phase(taken: "2027-01-15 12:00:00", latitude: 48.85, longitude: 2.35) == .day)
        #expect(ShownPhase.phase(taken: "2027-01-15 23:30:00", latitude: 48.85, longitude: 2.35) == .night)
        #expect(ShownPhase.phase(taken: "2027-01-15 16:45:00", latitude: 48.85, longitude: 2.35) == .dusk)
        // Tokyo at 21:00 on its clock (JST, UTC+9) is night.
        #expect(ShownPhase.phase(taken: "2026-07-01 21:00:00", latitude: 35.68, longitude: 139.7) == .night)
        #expect(ShownPhase.phase(taken: "2026-07-01 12:00:00", latitude: 35.68, longitude: 139.7) == .day)
        #expect(ShownPhase.phase(taken: "2026-13-01 12:00:00", latitude: 0, longitude: 0) == nil)
        #expect(ShownPhase.phase(taken: "yesterday", latitude: 0, longitude: 0) == nil)
        #expect(ShownPhase.seconds("1970-01-01 00:00:00") == 0 && ShownPhase.seconds("2000-03-01 00:00:00") == 951_868_800)
        #expect(ShownPhase.phase(tags: ["paris", "milkyway"]) == .night)
        #expect(ShownPhase.phase(tags: ["sunset", "goldenhour"])?.group == "golden")
        #expect(ShownPhase.phase(tags: ["bluehour"]) == .twilight)
        #expect(ShownPhase.phase(tags: ["sunset", "milkyway"]) == nil, "tags that disagree say nothing sure")
        #expect(ShownPhase.phase(tags: ["hollywood", "stars"]) == nil && ShownPhase.phase(tags: ["alba"]) == nil, "words as often names")
        #expect(ShownPhase.phase(tags: ["paris"]) == nil)
    }

    @Test func flickrsExtrasInEveryFormTheyCome() throws {
        let answer = """
            {"photos":{"page":1,"pages":1,"perpage":250,"total":"3","photo":[
            {"id":"1","owner":"a@N00","title":"t","license":"4","url_l":"https://live.staticflickr.com/1_l.jpg","width_l":"1024","height_l":"768",
             "datetaken":"2026-06-21 22:15:00","datetakengranularity":"0","datetakenunknown":"0","tags":"Paris nightphotography",
             "latitude":"48.85","longitude":"2.35","accuracy":"16","context":"2","views":"1234","o_width":"4000","o_height":"6000"},
            {"id":"2","owner":"b@N00","title":"t","license":4,"url_l":"https://live.staticflickr.com/2_l.jpg","width_l":1024,"height_l":768,
             "datetaken":"2026-06-21 12:00:00","datetakengranularity":4,"datetakenunknown":0,"tags":"","latitude":0,"longitude":0,
             "accuracy":0,"context":1,"views":7},
            {"id":"3","owner":"c@N00","title":"t","license":"4","url_l":"https://live.staticflickr.com/3_l.jpg","width_l":"1024","height_l":"768",
             "datetaken":"2026-06-21 12:00:00","datetakengranularity":"0","datetakenunknown":"1"},
            {"id":"4","owner":"d@N00","title":"t","license":"4","url_l":"https://live.staticflickr.com/4_l.jpg","width_l":"1024","height_l":"768",
             "datetaken":"2026-06-21 00:00:00","datetakengranularity":"0","datetakenunknown":"0","tags":"paris"}
            ]},"stat":"ok"}
            """
        let photos = try FlickrSearchResponse.parse(Array(answer.utf8), allowedLicenses: [4]).photos
        #expect(photos.map(\.id) == ["1", "2", "3", "4"])
        let first = photos[0].facts
        #expect(first.exactTaken == "2026-06-21 22:15:00" && first.tags == ["paris", "nightphotography"] && first.context == 2)
        #expect(first.accuracy == 16 && first.latitude == 48.85 && first.longitude == 2.35 && first.views == 1234)
        #expect(first.originalWidth == 4000 && first.originalHeight == 6000 && first.order == 0)
        let second = photos[1].facts
        #expect(second.exactTaken == nil, "granularity 4 (a month): not exact")
        #expect(second.context == 1 && second.accuracy == 0 && second.latitude == nil && second.order == 1)
        #expect(photos[2].facts.exactTaken == nil, "datetakenunknown 1: Flickr made the date up")
        // Issue 59, part 5: `00:00:00` is a date without a time, not a photo at midnight (night), on Flickr and Commons.
        let paris = try #require(Geohash("u09tv"))
        #expect(photos[3].facts.exactTaken == nil && RankingCandidate(photos[3], near: paris).shown == nil)
        #expect(CommonsFile.exactTime("2026-06-21 00:00:00") == nil && CommonsFile.exactTime("2026-06-21 00:00") == nil)
        #expect(
            CommonsFile.exactTime("2026-06-21 00:00:01") == "2026-06-21 00:00:01"
                && CommonsFile.exactTime("2026-06-21 23:10") == "2026-06-21 23:10:00"
        )
        let cell = try #require(Geohash("u09tv"))
        // 22:15 CEST in Paris on 21 June is twilight (the sun 3° down): the clock, read as civil time, beats the tag.
        #expect(RankingCandidate(photos[0], near: cell).shown == .twilight && RankingCandidate(photos[0], near: cell).height == 6000)
        #expect(RankingCandidate(photos[1], near: cell).setting == .indoors && RankingCandidate(photos[1], near: cell).shown == nil)
    }

    // MARK: - through the stand-in Flickr

    static func dated(_ flickr: StandInFlickr, _ id: String, taken: String, tags: String = "", context: Int = 0) -> StandInFlickr.Result {
        var result = flickr.result(id: id)
        result.extras = [
            ("datetaken", "\"\(taken)\""), ("datetakengranularity", "0"), ("datetakenunknown", "\"0\""), ("tags", "\"\(tags)\""),
            ("latitude", "48.8566"), ("longitude", "2.3522"), ("accuracy", "\"16\""), ("context", "\(context)"),
        ]
        return result
    }

    static func answers(_ flickr: StandInFlickr) -> [FlickrBackdrop.Answer] {
        [
            .json(
                StandInFlickr.searchJSON([
                    Self.dated(flickr, "53000000001", taken: "2026-07-04 23:40:00", tags: "paris night"),
                    Self.dated(flickr, "53000000002", taken: "2026-07-04 13:10:00", tags: "paris"),
                    Self.dated(flickr, "53000000003", taken: "2026-07-04 14:00:00", context: 1),
                ])
            )
        ]
    }

    @Test(
        "the sky at the place picks the photo, through the stand-in Flickr",
        arguments: [("2027-01-15T12:05:00Z", "flickr-53000000002"), ("2027-01-15T23:05:00Z", "flickr-53000000001")]
    )
    func throughTheStandIn(_ now: String, _ expected: String) async throws {
        let clock = FixedClock(date: try #require(ISO8601DateFormatter().date(from: now)))
        try await FlickrBackdrop.withBackdrop(Self.answers, clock: clock, configure: FlickrBackdrop.patient) { flickr, client, _ in
            let answer = try await TestApp.get(client, "/background.json?\(TestApp.paris)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
            #expect(json["photoId"] as? String == expected, "at \(now)")
            let query = try #require(flickr.searches.first).query
            #expect(query["sort"] == "interestingness-desc")
            let extras = Set((query["extras"] ?? "").split(separator: ",").map(String.init))
            #expect(extras.isSuperset(of: ["date_taken", "tags", "geo", "views", "o_dims"]), "\(extras)")
            #expect(flickr.searches.count == 1, "still one search per cell-window")
        }
    }
}
