import Foundation
import HummingbirdTesting
import Synchronization
import Testing

@testable import Backdrop

/// The screen's class is part of the choice (``ScreenShape``): through the stand-in Flickr and the stock library, a
/// desktop gets a landscape photo and a phone a portrait one, the same for every size, blur and format of the class.
@Suite("Orientation")
struct OrientationTests {
    static let desktop = "width=1920&height=1080"
    static let phone = "width=390&height=844"

    /// Three portrait photos placed to a street, first in Flickr's order; three landscape ones placed to a city, later.
    static func results(_ flickr: StandInFlickr) -> [StandInFlickr.Result] {
        (1...6).map { index in
            var result = flickr.result(id: "5300000000\(index)")
            result.owner = "\(index)@N0\(index)"
            let landscape = index > 3
            result.extras = [("context", "2"), ("accuracy", landscape ? "11" : "16")]
            if landscape { result.sizes = result.sizes.map { ($0.0, $0.1, $0.3, $0.2) } }
            return result
        }
    }

    static func photoID(_ client: some TestClientProtocol, _ path: String) async throws -> String {
        let answer = try await TestApp.get(client, path)
        #expect(answer.status == .ok, "\(path)")
        return try #require(answer.headers[BackdropHeaders.photoID], "\(path)")
    }

    @Test func aDesktopGetsALandscapePhotoAndAPhoneAPortraitOneTheSameForEverySizeOfItsClass() async throws {
        let answers = { @Sendable (flickr: StandInFlickr) -> [FlickrBackdrop.Answer] in [.json(StandInFlickr.searchJSON(Self.results(flickr)))] }
        try await FlickrBackdrop.withBackdrop(answers, configure: FlickrBackdrop.patient) { flickr, client, _ in
            let wide = try await TestApp.json(client, "\(TestApp.paris)&\(Self.desktop)")
            let wideID = try #require(wide["photoId"] as? String)
            #expect(wide["orientation"] as? String == "landscape" && ["flickr-53000000004", "flickr-53000000005", "flickr-53000000006"].contains(wideID), "\(wideID)")
            let tall = try await TestApp.json(client, "\(TestApp.paris)&\(Self.phone)")
            let tallID = try #require(tall["photoId"] as? String)
            #expect(tall["orientation"] as? String == "portrait" && ["flickr-53000000001", "flickr-53000000002", "flickr-53000000003"].contains(tallID), "\(tallID)")
            // Every size, blur and format of a class, and the JSON's cell URLs, give the class's photo.
            for query in ["\(Self.desktop)&blur=0.3", "width=1280&height=720&format=webp", "width=2048&height=1152&blur=1&format=jpeg"] {
                #expect(try await Self.photoID(client, "/background?\(TestApp.paris)&\(query)") == wideID, "\(query)")
            }
            for query in ["\(Self.phone)&blur=0.7", "width=946&height=2048&format=avif"] {
                #expect(try await Self.photoID(client, "/background?\(TestApp.paris)&\(query)") == tallID, "\(query)")
            }
            let images = try #require(wide["images"] as? [String: Any])
            #expect(try await Self.photoID(client, try #require(images["sharp"] as? String)) == wideID)
            #expect(flickr.searches.count == 1, "one search serves every class")
        }
    }

    @Test("stock follows the class too, by day and at night", arguments: [TestApp.noon, TestApp.night])
    func stockFollowsTheClass(_ now: String) async throws {
        let library = try StockPhotoLibrary.load(folder: Fixtures.stockFolder)
        let shapes = Dictionary(uniqueKeysWithValues: library.entries.map { ($0.photo.id, ScreenShape($0.size)) })
        try await TestApp.withStock(at: try TestApp.date(now)) { client in
            for (query, shape) in [(Self.desktop, ScreenShape.landscape), (Self.phone, .portrait)] {
                for variant in 0..<3 {
                    let json = try await TestApp.json(client, "\(TestApp.paris)&\(query)&variant=\(variant)")
                    let id = try #require(json["photoId"] as? String)
                    #expect(json["source"] as? String == "stock" && json["orientation"] as? String == shape.rawValue)
                    // The first of each class's own photos (at night one a class; by day two portraits, three landscapes).
                    if variant == 0 || (now == TestApp.noon && variant < 2) {
                        #expect(shapes[id] == shape, "\(now) \(query) variant \(variant): \(id)")
                    }
                }
            }
        }
    }
}
