import Foundation
import HummingbirdTesting
import Logging
import Testing

@testable import Backdrop

/// The photo line as a whole, through the stand-in Flickr and Commons: a photo that cannot be fetched, decoded or pass
/// the quality gate is replaced by its source's next candidate, then by the next source's photo, and the stock photos
/// end the line, so that no photo's fault reaches the client; a bad file in a Commons answer never sinks the cell; night
/// photographs pass the gate at night.
@Suite("The photo line through stand-ins", .serialized)
struct PhotoLineTests {
    typealias File = StandInCommons.File
    static let paris = "lat=48.8566&lon=2.3522&width=64&height=64"
    /// 23:00 UTC in January: night in Paris.
    static let night = Date(timeIntervalSince1970: 1_800_054_020)

    /// Every fault an image host can make, as the stand-ins name them; `blurred.jpg` fails the quality gate.
    static let faults = [
        "truncated.jpg", "huge.jpg", "image.png", "page.html", "oversized.jpg", "redirect-loopback.jpg", "redirect-elsewhere.jpg",
        "redirect-loop.jpg", "no-answer.jpg", "trickle.jpg", "server-error.jpg", "missing.jpg", "blurred.jpg",
    ]
    /// The faults that end by themselves, before any deadline.
    static let quickFaults = Self.faults.filter { !["no-answer.jpg", "trickle.jpg"].contains($0) }

    /// Backdrop with Flickr answering `flickr` and Commons `commons`, every per-call timeout `callTimeout` and the
    /// request's deadline `deadline`.
    static func withBackdrop(
        flickr: @escaping @Sendable (StandInFlickr) -> [StandInFlickr.SearchAnswer],
        commons: @escaping @Sendable (StandInCommons) -> [StandInCommons.Answer],
        deadline: Duration = .seconds(20),
        callTimeout: Duration = .seconds(1),
        clock: any WallClock = FixedClock(date: TestApp.epoch),
        _ body: @Sendable (StandInFlickr, StandInCommons, any TestClientProtocol, LogRecords) async throws -> Void
    ) async throws {
        try await StandInFlickr.run(flickr) { standInFlickr in
            try await StandInCommons.run(commons) { standInCommons in
                var settings = FlickrBackdrop.settings(standInFlickr) { $0.flickr.totalTimeout = callTimeout }
                settings.photos.sources = [.flickr, .commons, .stock]
                settings.photos.requestDeadline = deadline
                settings.cluster.lease = deadline + .seconds(5)
                settings.commons.endpoint = standInCommons.endpoint
                settings.commons.extraImageHosts = ["localhost"]
                settings.commons.userAgent = "Backdrop-tests/1.0 (ops@example.org)"
                settings.commons.connectTimeout = .seconds(1)
                settings.commons.totalTimeout = callTimeout
                settings.commons.maxDownloadMB = 1
                let records = LogRecords()
                let logger = records.logger
                try await TestApp.run(settings, clock: clock, logger: logger) { client in try await body(standInFlickr, standInCommons, client, records) }
            }
        }
    }

    /// Results showing `images`, each at URLs of its own (so that a download of one is never another's).
    static func flickrResults(_ flickr: StandInFlickr, _ images: [String]) -> [StandInFlickr.SearchAnswer] {
        let results = images.enumerated().map { index, image in
            var result = flickr.result(id: "5302222222\(index)", image: image)
            result.sizes = result.sizes.map { ($0.0, "\($0.1)&n=\(index)", $0.2, $0.3) }
            return result
        }
        return [.json(StandInFlickr.searchJSON(results))]
    }

    static func commonsFiles(_ images: [String], from first: Int = 100) -> [File] {
        images.enumerated().map { index, image in
            var file = File(pageid: first + index)
            file.image = image
            return file
        }
    }

    /// A 200 of the asked size; its source.
    static func served(_ client: some TestClientProtocol, _ query: String = Self.paris) async throws -> String? {
        let answer = try await TestApp.get(client, "/background?\(query)")
        #expect(answer.status == .ok, "\(String(decoding: answer.body.prefix(200), as: UTF8.self))")
        if answer.status == .ok { #expect(try PNGDecoder.decode(answer.body).width == 64) }
        return answer.headers[BackdropHeaders.source]
    }

    @Test("every candidate of every source bad: stock, a 200 within the deadline", arguments: Self.faults)
    func everyCandidateOfEverySourceBadServesStock(_ fault: String) async throws {
        try await Self.withBackdrop(
            flickr: { Self.flickrResults($0, Array(repeating: fault, count: 5)) },
            commons: { [.json($0.searchJSON(Self.commonsFiles(Array(repeating: fault, count: 5))))] },
            // Per-call timeouts far beyond the deadline: only the deadline bounds a hang.
            deadline: .seconds(4),
            callTimeout: .seconds(60)
        ) { flickr, commons, client, _ in
            for attempt in 0..<2 {
                let start = ContinuousClock.now
                let served = try await Self.served(client)
                #expect(served == "stock", "\(fault), request \(attempt)")
                // The deadline, and the stock render after it with the whole suite beside it on two cores (at most 4 s
                // measured on the release build) thrice over; a hang the deadline did not end would take the 60-s
                // per-call timeouts.
                #expect(ContinuousClock.now - start < .seconds(16), "\(fault), request \(attempt)")
            }
            let json = try await TestApp.get(client, "/background.json?\(Self.paris)")
            #expect(json.status == .ok)
            // At most three photos of a source per request, each tried once in the window.
            // Each file's own path: a redirect's target (`…/x/` at the stand-in Commons) is not another photo.
            let photos = { (paths: [String]) in
                Set(paths.map { $0.split(separator: "?")[0] }.filter { !$0.contains("after-redirect") && !$0.hasPrefix("/wikipedia/commons/x/") })
            }
            #expect(photos(flickr.downloads.map(\.path)).count <= 5 && photos(commons.downloads.map(\.path)).count <= 5)
        }
    }

    /// The whole unhappy path by day and at night: every source down (Flickr and Commons answering 500), or every
    /// candidate of both bad (truncated, turned down by the gate). A 200 from stock, of the sky at the place.
    @Test(arguments: [(false, false), (false, true), (true, false), (true, true)])
    func everySourceDownOrEveryCandidateBadByDayAndAtNight(atNight: Bool, sourcesDown: Bool) async throws {
        try await Self.withBackdrop(
            flickr: { sourcesDown ? [.status(500, "<html>down</html>")] : Self.flickrResults($0, Array(repeating: "truncated.jpg", count: 5)) },
            commons: { sourcesDown ? [.status(500, [])] : [.json($0.searchJSON(Self.commonsFiles(Array(repeating: "blurred.jpg", count: 5))))] },
            deadline: .seconds(4),
            callTimeout: .seconds(60),
            clock: FixedClock(date: atNight ? Self.night : TestApp.epoch)
        ) { _, _, client, _ in
            let start = ContinuousClock.now
            let served = try await Self.served(client)
            #expect(served == "stock")
            // As above: the deadline, and a margin for the whole suite beside it; a hang would take 60 s.
            #expect(ContinuousClock.now - start < .seconds(16))
            // The lossy formats down the same path: each quality fitted to its floor and checked on the stock photo.
            for format in [OutputFormat.jpeg, .webp, .avif] {
                let answer = try await TestApp.get(client, "/background?\(Self.paris)&format=\(format.rawValue)")
                #expect(answer.status == .ok && answer.headers[BackdropHeaders.source] == "stock", "\(format)")
                #expect(try decodeImage(answer.body, as: format).width == 64, "\(format)")
            }
            let (answer, json) = try await TestApp.answerAndJSON(client, Self.paris)
            #expect(answer.status == .ok && json["source"] as? String == "stock")
            #expect(json["phase"] as? String == (atNight ? "night" : json["photoPhase"] as? String), "the stock photo shows the sky: \(json)")
            #expect(json["photoPhase"] as? String == json["phase"] as? String, "\(json)")
            // A desktop and a phone down the same path: stock of the sky at the place, for their class of screen.
            let library = try StockPhotoLibrary.load(folder: Fixtures.stockFolder)
            let shapes = Dictionary(uniqueKeysWithValues: library.entries.map { ($0.photo.id, ScreenShape($0.size)) })
            for (size, shape) in [("width=1920&height=1080", ScreenShape.landscape), ("width=390&height=844", .portrait)] {
                let (answer, json) = try await TestApp.answerAndJSON(client, "lat=48.8566&lon=2.3522&\(size)")
                let id = json["photoId"] as? String ?? ""
                #expect(answer.status == .ok && json["source"] as? String == "stock" && json["orientation"] as? String == shape.rawValue)
                #expect(shapes[id] == shape && json["photoPhase"] as? String == json["phase"] as? String, "\(size): \(json)")
            }
        }
    }

    @Test("every Flickr candidate bad: the next source's photo", arguments: Self.quickFaults)
    func everyFlickrCandidateBadServesCommons(_ fault: String) async throws {
        try await Self.withBackdrop(
            flickr: { Self.flickrResults($0, Array(repeating: fault, count: 5)) },
            commons: { [.json($0.searchJSON([File(pageid: 4242)]))] }
        ) { flickr, _, client, records in
            let served = try await Self.served(client)
            #expect(served == "commons", "\(fault)")
            // Each photo's first call carries its size; a redirect's hops do not.
            let tried = flickr.downloads.filter { $0.query["size"] != nil }.count
            #expect(tried == 3, "\(fault): three Flickr photos, then Commons")
            let line = try #require(records.all.first { $0.message.contains("photos passed over") })
            #expect(line.metadata["served"]?.description == "commons-4242", "\(line.metadata)")
        }
    }

    @Test("every Commons candidate bad, no Flickr key: stock", arguments: Self.quickFaults)
    func everyCommonsCandidateBadServesStock(_ fault: String) async throws {
        try await StandInCommons.run({ [.json($0.searchJSON(Self.commonsFiles(Array(repeating: fault, count: 6))))] }) { commons in
            let settings = CommonsBackdrop.settings(commons) {
                $0.commons.maxDownloadMB = 1
                $0.commons.totalTimeout = .seconds(1)
            }
            try await TestApp.run(settings) { client in
                let first = try await Self.served(client)
                let again = try await Self.served(client)
                #expect(first == "stock" && again == "stock", "\(fault)")
            }
        }
    }

    @Test func theThirdCandidateIsServedWhenTheFirstTwoFail() async throws {
        try await Self.withBackdrop(
            flickr: { flickr in
                var first = flickr.result(id: "53033333331", image: "truncated.jpg")
                var second = flickr.result(id: "53033333332", image: "blurred.jpg")
                // Ranked first: outdoors and placed to a street; the good one says indoors, so it comes last.
                (first.extras, second.extras) = ([("context", "2"), ("accuracy", "16")], [("context", "2"), ("accuracy", "16")])
                var good = flickr.result(id: "53033333333", image: "photo.jpg")
                good.extras = [("context", "1")]
                return [.json(StandInFlickr.searchJSON([good, first, second]))]
            },
            commons: { [.json($0.searchJSON([File(pageid: 4242)]))] }
        ) { flickr, commons, client, records in
            let answer = try await TestApp.get(client, "/background?\(Self.paris)")
            #expect(answer.status == .ok && answer.headers[BackdropHeaders.photoID] == "flickr-53033333333")
            #expect(flickr.downloads.count == 3 && commons.downloads.isEmpty)
            let line = try #require(records.all.first { $0.message.contains("photos passed over") })
            let passed = line.metadata["passed"]?.description ?? ""
            #expect(passed.contains("flickr-53033333331") && passed.contains("flickr-53033333332") && passed.contains("quality gate (blurred)"))
            // The same photo for the rest of the window, with no download of the failed ones again.
            let again = try await TestApp.get(client, "/background?\(Self.paris)&blur=0.2")
            #expect(again.headers[BackdropHeaders.photoID] == "flickr-53033333333" && flickr.downloads.count == 3)
        }
    }

    @Test func oneUnreadableFileNeverSinksACommonsCell() async throws {
        try await StandInCommons.run({ commons in
            var huge = File(pageid: 1)
            huge.artist = String(repeating: "a", count: 4 << 20)  // a pasted credit of 4 MiB
            var stringWidth = File(pageid: 2)
            stringWidth.width = 4001
            var noPageID = File(pageid: 3)
            noPageID.name = "No page id.jpg"
            let good = File(pageid: 4242)
            let text = commons.searchJSON([huge, stringWidth, noPageID, good])
                .replacingOccurrences(of: "\"width\":4001", with: "\"width\":\"4001\"")
                .replacingOccurrences(of: "{\"pageid\":3,", with: "{")
            return [.json(text)]
        }) { commons in
            try await TestApp.run(CommonsBackdrop.settings(commons)) { client in
                let (answer, json) = try await TestApp.answerAndJSON(client, Self.paris)
                #expect(answer.status == .ok && json["source"] as? String == "commons" && json["photoId"] as? String == "commons-4242")
            }
        }
    }

    @Test func nightPhotographsAreServedAtNight() async throws {
        // Undated night photographs (black sky over half the frame, lights): at night they pass the gate.
        let images = ["night-city.jpg", "night-harbour.jpg", "night-stars.jpg", "night-street.jpg"]
        try await StandInCommons.run({ [.json($0.searchJSON(Self.commonsFiles(images)))] }) { commons in
            try await TestApp.run(CommonsBackdrop.settings(commons), clock: FixedClock(date: Self.night)) { client in
                for variant in 0..<4 {
                    let answer = try await TestApp.get(client, "/background?\(Self.paris)&variant=\(variant)")
                    #expect(answer.status == .ok && answer.headers[BackdropHeaders.source] == "commons", "variant \(variant)")
                }
            }
            #expect(Set(commons.downloads.map(\.path)).count == 4, "each downloaded once, none turned down")
        }
    }

    @Test func oneClientCannotSpendTheWholeBudgetOnNewCells() async throws {
        // Commons knows nothing near any of these cells (the open sea): each new cell is a search of a budget of 20 calls
        // an hour, of which one client (a /24) may take a tenth; the share reserves a search's first call, and its
        // later two (the wider assessed files and the nearest) are counted, never refused. The first client asks 12 new cells at once (Commons answers
        // each after 300 ms, so all are asked before any answer); a neighbour in its /24 then asks one, and a client of
        // another network one.
        try await StandInCommons.run({ _ in [.later(.milliseconds(300), "{\"batchcomplete\":true}")] }) { commons in
            let settings = CommonsBackdrop.settings(commons) { $0.commons.callsPerHour = 20 }
            try await TestApp.run(settings, live: true) { client in
                let port = try #require(client.port)
                let sources = try await withThrowingTaskGroup(of: String?.self) { group in
                    for cell in 0..<12 {
                        group.addTask {
                            let path = "/background?lat=-30&lon=-\(10 + 2 * cell)&width=64&height=64"
                            let answer = try await RawHTTP.exchangeOnItsOwnThread(port: port, from: "127.0.1.2", path)
                            return answer.status == 200 ? answer.header("x-backdrop-source") : nil
                        }
                    }
                    return try await group.reduce(into: [String?]()) { $0.append($1) }
                }
                #expect(sources.allSatisfy { $0 == "stock" }, "\(sources)")
                #expect(commons.geosearches.count == 2, "a tenth of the hour's 20 calls, reserved before each: \(commons.searches.count)")
                let neighbour = try await RawHTTP.exchangeOnItsOwnThread(
                    port: port,
                    from: "127.0.1.77",
                    "/background?lat=-45&lon=-30&width=64&height=64"
                )
                #expect(neighbour.status == 200 && commons.geosearches.count == 2, "an address of the same /24 is the same client")
                let other = try await RawHTTP.exchangeOnItsOwnThread(port: port, from: "127.0.2.3", "/background?lat=-46&lon=-30&width=64&height=64")
                #expect(other.status == 200 && commons.geosearches.count == 3, "another client's new cell is still searched")
                // A cell already searched costs nothing: the first client gets it from memory, with no call.
                let known = try await RawHTTP.exchangeOnItsOwnThread(port: port, from: "127.0.1.2", "/background?lat=-46&lon=-30&width=64&height=64")
                #expect(known.status == 200 && commons.geosearches.count == 3 && commons.searches.count == 9)
            }
        }
        #expect(ClientShares.network(RequestClient("203.0.113.7")) == "203.0.113.0/24")
        #expect(ClientShares.network(RequestClient("2001:db8:1:2::/64")) == "2001:db8:1::/48")
        #expect(ClientShares.network(RequestClient("10.1.0.0/16")) == "10.1.0.0/24" && ClientShares.network(.unknown) == nil)
    }

    /// A reservation no call used is given back: a client whose new cells another replica already searched, or whose
    /// search failed before its call, keeps its share.
    @Test func aReservationNoCallUsedIsGivenBack() async throws {
        let shares = ClientShares(budget: "Commons", callsPerHour: 20, clock: FixedClock(date: TestApp.epoch))
        let sharing = LocalCoordinator(source: "commons", callsPerHour: 20, clock: FixedClock(date: TestApp.epoch), metrics: BackdropMetrics())
        let client = RequestClient("198.51.100.7")
        for _ in 0..<10 {
            let reservation = try #require(await shares.reserve(client, through: sharing))
            await shares.settle(reservation, through: sharing)
        }
        let first = try #require(await shares.reserve(client, through: sharing))
        #expect(first.used())
        let second = try #require(await shares.reserve(client, through: sharing), "a share of 2: one left")
        #expect(second.used())
        #expect(await shares.reserve(client, through: sharing) == nil, "both made: spent")
        #expect(await shares.reserve(RequestClient("198.51.101.7"), through: sharing) != nil, "another /24")
    }

    @Test func aPhotoTaggedFogIsNotTurnedDownAsBlurred() async throws {
        try await StandInCommons.run({ commons in
            var fog = File(pageid: 7)
            fog.image = "blurred.jpg"
            fog.categories = "Fog in Paris|Seine"
            return [.json(commons.searchJSON([fog]))]
        }) { commons in
            try await TestApp.run(CommonsBackdrop.settings(commons)) { client in
                let served = try await Self.served(client)
                #expect(served == "commons")
            }
        }
    }
}
