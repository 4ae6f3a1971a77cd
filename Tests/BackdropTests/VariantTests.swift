import Foundation
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import Backdrop

/// `variant`, the stock photos chosen by the sky, and the operator's denylist: through the API, with stock photos
/// alone and with the stand-in Flickr.
@Suite("Variants, stock by the sky, and the denylist")
struct VariantTests {
    // MARK: - stock photos by the sky

    @Test(
        "with no key, the stock photo shows the sky at the place",
        arguments: [(TestApp.night, "night"), (TestApp.noon, "day"), ("2027-01-15T15:35:00Z", "golden"), ("2027-01-15T16:35:00Z", "twilight")]
    )
    func stockFollowsTheSun(_ now: String, _ sky: String) async throws {
        try await TestApp.withStock(at: try TestApp.date(now)) { client in
            let json = try await TestApp.json(client, "\(TestApp.paris)&width=64&height=64")
            #expect(json["phase"] as? String == sky && json["source"] as? String == "stock", "\(now)")
            #expect(json["photoPhase"] as? String == sky, "\(now): \(json["photoId"] ?? "")")
        }
        // Without a location nothing says what the sky is: any stock photo, and no phase.
        try await TestApp.withStock(at: try TestApp.date(now)) { client in
            let json = try await TestApp.json(client, "width=64&height=64")
            #expect(json["phase"] == nil && json["variants"] as? Int == 10)
        }
    }

    @Test func consecutiveWindowsTakeTurnsAmongTheStockPhotosOfTheSkyAndClass() async throws {
        let library = try StockPhotoLibrary.load(folder: Fixtures.stockFolder)
        let shapes = Dictionary(uniqueKeysWithValues: library.entries.map { ($0.photo.id, ScreenShape($0.size)) })
        // By day a desktop has four landscapes: consecutive windows never repeat one, and every one is a landscape.
        let ids = Mutex([String]())
        for window in 0..<6 {
            try await TestApp.withStock(at: try TestApp.date(TestApp.noon).addingTimeInterval(Double(window) * 900)) { client in
                let json = try await TestApp.json(client, "\(TestApp.paris)&width=1920&height=1080")
                let id = json["photoId"] as? String ?? ""
                #expect(json["photoPhase"] as? String == "day" && shapes[id] == .landscape, "window \(window): \(id)")
                ids.withLock { $0.append(id) }
            }
        }
        let shown = ids.withLock { $0 }
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0 != $1 }, "consecutive windows repeat: \(shown)")
        #expect(Set(shown).count >= 4, "\(shown)")
        // At night a near-square screen gets the night photo a square crop keeps most of (16:10 keeps 62.5 %, 9:16
        // 56 %): the landscape, each window.
        for window in 0..<2 {
            try await TestApp.withStock(at: try TestApp.date(TestApp.night).addingTimeInterval(Double(window) * 900)) { client in
                let json = try await TestApp.json(client, "\(TestApp.paris)&width=64&height=64")
                #expect(json["photoPhase"] as? String == "night" && json["photoId"] as? String == "stock-022")
            }
        }
    }

    // MARK: - variant

    @Test func eachVariantIsAnotherPhotoAndItsURLsSaySo() async throws {
        try await TestApp.withStock(at: try TestApp.date(TestApp.noon)) { client in
            var ids = [String]()
            for variant in 0..<PhotoVariants.limit {
                let json = try await TestApp.json(client, "\(TestApp.paris)&width=64&height=64&variant=\(variant)")
                #expect(json["variant"] as? Int == variant && json["variants"] as? Int == PhotoVariants.limit)
                ids.append(json["photoId"] as? String ?? "")
                let images = try #require(json["images"] as? [String: Any])
                let sharp = try #require(images["sharp"] as? String)
                #expect(sharp.contains("variant=\(variant)") == (variant != 0), "\(sharp): the cell URL carries a variant other than 0")
                let image = try await TestApp.get(client, sharp)
                #expect(image.headers[BackdropHeaders.photoID] == ids.last, "the cell URL gives the photo the JSON names")
                #expect(image.headers[BackdropHeaders.link]?.contains(variant == 0 ? "cell=" : "variant=\(variant)") == true)
            }
            #expect(Set(ids).count == PhotoVariants.limit, "\(ids)")
            #expect(Array(ids.prefix(6)).allSatisfy { ["stock-012", "stock-013", "stock-014", "stock-015", "stock-016", "stock-017"].contains($0) })
        }
    }

    @Test(arguments: ["10", "-1", "abc", "1.5", "", "999"])
    func aVariantOutOfRangeIsA400NamingIt(_ text: String) async throws {
        try await TestApp.withStock(at: TestApp.epoch) { client in
            for path in ["/background", "/background.json"] {
                let answer = try await TestApp.get(client, "\(path)?\(TestApp.paris)&variant=\(text)")
                let json = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
                #expect(answer.status == .badRequest && json?["parameter"] as? String == "variant", "\(path) variant=\(text)")
            }
        }
    }

    // MARK: - through the stand-in Flickr

    static func results(_ flickr: StandInFlickr, owners: [String] = ["1@N01", "2@N02", "3@N03"]) -> [StandInFlickr.Result] {
        owners.enumerated().map { index, owner in
            var result = flickr.result(id: "5300000000\(index + 1)")
            result.owner = owner
            result.extras = [("context", "2"), ("accuracy", "16")]
            return result
        }
    }

    @Test func flickrVariantsFollowTheRankingTheSameInEveryReplica() async throws {
        let answers = { @Sendable (flickr: StandInFlickr) -> [FlickrBackdrop.Answer] in [.json(StandInFlickr.searchJSON(Self.results(flickr)))] }
        let chosen = Mutex<[[String]]>([])
        for _ in 0..<2 {  // two replicas sharing nothing: the ranking alone makes them agree
            try await FlickrBackdrop.withBackdrop(answers, configure: FlickrBackdrop.patient) { flickr, client, _ in
                var ids = [String]()
                for variant in 0..<4 {
                    let json = try await TestApp.json(client, "\(TestApp.paris)&width=64&height=64&variant=\(variant)")
                    #expect(json["source"] as? String == "flickr" && json["variants"] as? Int == 3)
                    ids.append(json["photoId"] as? String ?? "")
                }
                #expect(Set(ids.prefix(3)).count == 3 && ids[3] == ids[0], "three photos, then round again: \(ids)")
                #expect(flickr.searches.count == 1, "one search per cell-window, whatever the variant")
                chosen.withLock { $0.append(ids) }
            }
        }
        let both = chosen.withLock { $0 }
        #expect(both.count == 2 && both[0] == both[1], "\(both)")
    }

    @Test func aDeniedPhotoOrOwnerIsNeverServedNotEvenFromTheDiskCacheAfterARestart() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let answers = { @Sendable (flickr: StandInFlickr) -> [FlickrBackdrop.Answer] in [.json(StandInFlickr.searchJSON(Self.results(flickr)))] }
        let query = "\(TestApp.paris)&width=64&height=64"
        // One stand-in Flickr for both runs: the results kept on disk name its image URLs.
        try await StandInFlickr.run(answers) { flickr in
            let before = FlickrBackdrop.settings(flickr) {
                FlickrBackdrop.patient(&$0)
                $0.cache.folder = folder.path
            }
            let first = Mutex("")
            try await TestApp.run(before) { client in
                let answer = try await TestApp.get(client, "/background?\(query)")
                first.withLock { $0 = answer.headers[BackdropHeaders.photoID] ?? "" }
            }
            let denied = first.withLock { $0 }
            #expect(denied.hasPrefix("flickr-"))
            // Another of the three denied by its owner: one photo is left.
            let other = try #require((1...3).first { "flickr-5300000000\($0)" != denied })
            var after = before
            after.photos.deny = [denied, "\(other)@N0\(other)"]
            // The same window after a restart, the chosen photo now denied: not restored, not served from the disk
            // cache, and the results kept on disk read without it (no new search).
            try await TestApp.run(after) { client in
                var served = Set<String>()
                for variant in 0..<4 {
                    let answer = try await TestApp.get(client, "/background?\(query)&variant=\(variant)")
                    #expect(answer.status == .ok)
                    served.insert(answer.headers[BackdropHeaders.photoID] ?? "")
                }
                let json = try await TestApp.json(client, query)
                #expect(!served.contains(denied) && !served.contains("flickr-5300000000\(other)"), "\(served)")
                #expect(served.count == 1 && json["variants"] as? Int == 1, "one photo left: \(served)")
            }
            #expect(flickr.searches.count == 1, "the results came back from disk")
        }
    }

    @Test func deniedStockPhotosAreLeftOutAndDenyingThemAllIsRefused() async throws {
        try await TestApp.withStock(at: try TestApp.date(TestApp.night), deny: ["stock-009", "stock-022"]) { client in
            for variant in 0..<PhotoVariants.limit {
                let json = try await TestApp.json(client, "\(TestApp.paris)&width=64&height=64&variant=\(variant)")
                let id = json["photoId"] as? String ?? ""
                #expect(id != "stock-009" && id != "stock-022")
                if variant == 0 { #expect(json["photoPhase"] as? String == "twilight", "the nearest sky left at night") }
            }
        }
        let none = StockPhotoSource(folder: Fixtures.stockFolder, deny: PhotoDenylist((0..<100).map { String(format: "stock-%03d", $0) }))
        await #expect { try await none.load() } throws: { "\($0)".contains("photos.deny names every stock photo") }
    }

    @Test func theDenylistIsCheckedWhenTheConfigIsRead() throws {
        let good = #"{"photos": {"deny": ["flickr-53012345678", "12345678@N00", "stock-003"]}}"#
        #expect(try Settings.parse(Data(good.utf8)).photos.deny.count == 3)
        for bad in [#"[""]"#, #"["two words"]"#, #""flickr-1""#, "[1]"] {
            #expect { try Settings.parse(Data(#"{"photos": {"deny": \#(bad)}}"#.utf8)) } throws: { "\($0)".contains("photos.deny") }
        }
    }
}
