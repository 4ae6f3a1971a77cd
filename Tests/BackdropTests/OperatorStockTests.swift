import Foundation
import Testing

@testable import Backdrop

/// Issue 59, part 6: an operator's own photos (`photos.extraStockFolder`) join the shipped stock library, each checked
/// at start; a bad one is refused with an error naming the setting, the file and the field.
@Suite("The operator's stock photos")
struct OperatorStockTests {
    static let header = "| number | title | author | licence | licence URL | source | phase |\n|---|---|---|---|---|---|---|\n"
    static let night =
        "| 001 | Harbour at night | Ops Photographer | CC BY 4.0 | https://creativecommons.org/licenses/by/4.0/ | https://example.org/harbour | night |\n"
    static let day =
        "| 002 | Our square | Ops Photographer | CC0 1.0 | https://creativecommons.org/publicdomain/zero/1.0/ | https://example.org/square | day |\n"

    /// A folder of two photos (a night landscape and a day portrait) with `credits` as its CREDITS.md.
    static func folder(credits: String, small: Bool = false) throws -> URL {
        let folder = try Fixtures.temporaryFolder()
        try Fixtures.jpeg(small ? 800 : 1600, small ? 500 : 1000, (20, 30, 60)).write(to: folder.appendingPathComponent("001-harbour.jpg"))
        try Fixtures.jpeg(1080, 1920, (120, 160, 200)).write(to: folder.appendingPathComponent("002-square.jpg"))
        try Data(credits.utf8).write(to: folder.appendingPathComponent("CREDITS.md"))
        return folder
    }

    @Test func theOperatorsPhotosJoinTheShippedOnesAndAreServed() async throws {
        let folder = try Self.folder(credits: Self.header + Self.night + Self.day)
        defer { try? FileManager.default.removeItem(at: folder) }
        let shipped = try StockPhotoLibrary.load(folder: Fixtures.repositoryRoot.appendingPathComponent("StockPhotos"))
        let source = StockPhotoSource(folder: Fixtures.repositoryRoot.appendingPathComponent("StockPhotos"), extraFolder: folder)
        let library = try await source.load()
        #expect(library.entries.count == shipped.entries.count + 2)
        let own = library.entries.filter { $0.photo.id.hasPrefix("stock-own-") }
        #expect(own.map(\.photo.id) == ["stock-own-001", "stock-own-002"])
        #expect(own.map(\.photo.shown) == [.night, .day] && own[0].photo.attribution.author == "Ops Photographer")
        #expect(own[1].photo.attribution.license == "CC0 1.0" && own[1].size == PixelSize(width: 1080, height: 1920))
        // Ranked as the shipped ones are: at midnight at (0, 0.1) the night landscapes come first, the operator's among them.
        let place = Place.cell(Geohash(latitude: 0, longitude: 0.1, precision: 5))
        let midnight = TimeWindow(containing: Date(timeIntervalSince1970: 0), seconds: 900)
        let order = StockPhotoSource.Ranked(
            library.entries.map(\.photo),
            sizes: library.entries.map(\.size),
            key: .init(place: place, window: midnight, shape: .landscape)
        ).order(place: place, window: midnight)
        let first = order.prefix { $0.shown == .night }
        #expect(first.count >= 2 && first.contains { $0.id == "stock-own-001" }, "\(order.map(\.id))")
        // Denied like any photo.
        let denied = StockPhotoSource(
            folder: Fixtures.repositoryRoot.appendingPathComponent("StockPhotos"),
            extraFolder: folder,
            deny: PhotoDenylist(["stock-own-002"])
        )
        #expect(try await denied.load().entries.filter { $0.photo.id.hasPrefix("stock-own-") }.map(\.photo.id) == ["stock-own-001"])
    }

    @Test(arguments: [
        ("no phase", header + night.replacingOccurrences(of: "| night |", with: "| |") + day, "001-harbour.jpg: its phase is missing"),
        (
            "a phase not known", header + night.replacingOccurrences(of: "| night |", with: "| evening |") + day,
            "001-harbour.jpg: its phase is missing"
        ),
        ("no licence", header + night + day.replacingOccurrences(of: "| CC0 1.0 |", with: "| |"), "002-square.jpg: its licence is missing"),
        ("no author", header + night.replacingOccurrences(of: "| Ops Photographer |", with: "| |") + day, "001-harbour.jpg: its author is missing"),
        (
            "a licence URL not a link",
            header + night + day.replacingOccurrences(of: "| https://creativecommons.org/publicdomain/zero/1.0/ |", with: "| CC0 |"),
            "002-square.jpg: its licence URL"
        ),
        ("no row", header + night, "002-square.jpg has no row 002"),
    ])
    func aBadCreditIsRefusedNamingTheFileAndTheField(_ what: String, credits: String, expected: String) async throws {
        let folder = try Self.folder(credits: credits)
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = try #require(throws: StockPhotoError.self, "\(what)") { try StockPhotoLibrary.loadOperators(folder: folder) }
        #expect(error.description.hasPrefix("photos.extraStockFolder: ") && error.description.contains(expected), "\(what): \(error)")
    }

    @Test func aSmallUnreadableOrMissingPhotoIsRefused() throws {
        let small = try Self.folder(credits: Self.header + Self.night + Self.day, small: true)
        defer { try? FileManager.default.removeItem(at: small) }
        let tooSmall = try #require(throws: StockPhotoError.self) { try StockPhotoLibrary.loadOperators(folder: small) }
        #expect(tooSmall.description.contains("001-harbour.jpg is too small: 800x500"))
        try Data("not a jpeg".utf8).write(to: small.appendingPathComponent("003-broken.jpg"))
        let unreadable = try #require(throws: StockPhotoError.self) { try StockPhotoLibrary.loadOperators(folder: small) }
        #expect(
            unreadable.description.contains("photos.extraStockFolder: ") && unreadable.description.contains("003-broken.jpg is not a readable JPEG")
        )
        let missing = try #require(throws: StockPhotoError.self) {
            try StockPhotoLibrary.loadOperators(folder: small.appendingPathComponent("nope"))
        }
        #expect(missing.description.contains("photos.extraStockFolder: ") && missing.description.contains("does not exist"))
    }
}
