import Foundation
import Testing

@testable import Backdrop

@Suite("Stock photos")
struct StockPhotoTests {
    @Test func shippedLibraryIsCreditedFullSizeAndCoversEveryPhaseGroupInBothOrientations() throws {
        let library = try StockPhotoLibrary.load(folder: Fixtures.stockFolder)
        #expect(library.entries.count >= 16)
        for entry in library.entries {
            let long = max(entry.size.width, entry.size.height)
            // At the original's resolution: 1600 px or more, but Storm's portrait (720x1280 out of a 1920x1280 original),
            // which a phone's 1080x1920 enlarges 1.5 times, within the ranking's 2.
            #expect(long >= (entry.photo.id == "stock-024" ? 1280 : 1600), "\(entry.file.lastPathComponent): at the original's resolution")
            #expect(entry.file.lastPathComponent.hasSuffix(".jpg") && JPEGDecoder.isJPEG(entry.bytes))
            #expect(!entry.photo.attribution.author.isEmpty && entry.photo.attribution.licenseURL.hasPrefix("https://"))
            #expect(entry.photo.shown != nil, "\(entry.photo.id) says what sky it shows")
        }
        // Night; twilight and golden; day: each in both orientations, as many portraits as landscapes, and three
        // landscapes by day and at sunset.
        let groups = Dictionary(grouping: library.entries) { $0.photo.shown?.group == "twilight" ? "golden" : $0.photo.shown?.group ?? "unknown" }
        for group in ["night", "golden", "day"] {
            let shapes = groups[group, default: []].map { ScreenShape($0.size) }
            #expect(shapes.contains(.portrait) && shapes.contains(.landscape), "\(group): \(shapes)")
            #expect(shapes.filter { $0 == .portrait }.count == shapes.filter { $0 == .landscape }.count, "\(group): \(shapes)")
        }
        for group in ["golden", "day"] {
            let landscapes = groups[group, default: []].filter { ScreenShape($0.size) == .landscape && max($0.size.width, $0.size.height) >= 1920 }
            #expect(landscapes.count >= 3, "\(group)")
        }
        let bytes = library.entries.reduce(0) { $0 + $1.bytes.count }
        #expect(bytes <= 12 << 20, "the folder stays within 12 MB: \(bytes) bytes")
    }

    /// The source keeps the library ranked per sky and class of screen rather than ranking it on every request: what
    /// it serves is what a fresh ranking gives, for places by day and at night, every class of screen and variant, in
    /// an order that meets each ranking again after others were kept.
    @Test func theKeptRankingServesWhatAFreshOneWould() async throws {
        let source = StockPhotoSource(folder: Fixtures.stockFolder)
        let library = try await source.load()
        let places =
            [Place.unknown] + (0..<24).map { Place.cell(Geohash(latitude: Double($0) * 6.5 - 70, longitude: Double($0) * 14.5 - 170, precision: 5)) }
        let windows = [0, 6, 12, 18].map { TimeWindow(containing: Date(timeIntervalSince1970: 1_780_000_000 + Double($0) * 3600), seconds: 900) }
        var phases = Set<SunPhase>()
        for round in 0..<2 {
            for window in windows {
                for place in places {
                    if case .cell(let cell) = place { phases.insert(SunPhase(cell: cell, window: window)) }
                    for shape in ScreenShape.allCases {
                        let fresh = StockPhotoSource.Ranked(
                            library.entries.map(\.photo),
                            sizes: library.entries.map(\.size),
                            key: .init(place: place, window: window, shape: shape)
                        ).order(place: place, window: window)
                        for variant in 0..<3 {
                            let served = try await source.photo(for: place, in: window, variant: variant, shape: shape)
                            #expect(served == PhotoVariants.pick(variant, from: fresh), "round \(round), \(place), \(shape), variant \(variant)")
                        }
                    }
                }
            }
        }
        #expect(phases.count >= 3, "the places meet several skies: \(phases)")
    }

    @Test func scanAcceptsGapsAndIgnoresOtherFiles() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Fixtures.jpeg(64, 114, (0, 0, 255)).write(to: folder.appendingPathComponent("007-seven.jpg"))
        try Fixtures.jpeg(32, 57, (255, 0, 0)).write(to: folder.appendingPathComponent("042-forty-two.JPEG"))
        try Fixtures.jpeg(32, 57, (255, 0, 0)).write(to: folder.appendingPathComponent("notes.jpg"))
        try Data("junk".utf8).write(to: folder.appendingPathComponent("1-one.jpg"))
        try Data("junk".utf8).write(to: folder.appendingPathComponent("003-old.png"))
        try Data(
            """
            | number | title | author | licence | licence URL | source | phase |
            |---|---|---|---|---|---|---|
            | 007 | Seven | Ann | CC0 1.0 | https://creativecommons.org/publicdomain/zero/1.0/ | https://example.org/7 | golden |
            | 042 | Forty-two | Bo | CC BY 4.0 | https://creativecommons.org/licenses/by/4.0/ | https://example.org/42 | sometimes |
            """.utf8
        ).write(to: folder.appendingPathComponent("CREDITS.md"))
        let library = try StockPhotoLibrary.load(folder: folder)
        #expect(library.entries.map(\.number) == [7, 42])
        #expect(library.entries[0].size == PixelSize(width: 64, height: 114))
        #expect(library.entries[0].photo.shown?.group == "golden")
        #expect(library.entries[1].photo.shown == nil, "a phase it does not know is no phase")
        #expect(library.entries[1].photo.attribution.title == "Forty-two")
        #expect(library.entries[1].photo.id == "stock-042")
    }

    @Test func missingEmptyUncreditedDuplicatedOrUnreadableFoldersAreRefused() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try #require(throws: StockPhotoError.self) { try StockPhotoLibrary.load(folder: folder.appendingPathComponent("nope")) }
        #expect(missing.description.contains("does not exist"))
        let empty = try #require(throws: StockPhotoError.self) { try StockPhotoLibrary.load(folder: folder) }
        #expect(empty.description.contains("no stock photos"))
        try Fixtures.jpeg(8, 8, (1, 1, 1)).write(to: folder.appendingPathComponent("001-one.jpg"))
        try Data("| 002 | x | y | z | https://a | https://b | day |".utf8).write(to: folder.appendingPathComponent("CREDITS.md"))
        let uncredited = try #require(throws: StockPhotoError.self) { try StockPhotoLibrary.load(folder: folder) }
        #expect(uncredited.description.contains("001"))
        try Fixtures.jpeg(8, 8, (1, 1, 1)).write(to: folder.appendingPathComponent("001-again.jpg"))
        let twice = try #require(throws: StockPhotoError.self) { try StockPhotoLibrary.load(folder: folder) }
        #expect(twice.description.contains("same number"))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("001-again.jpg"))
        try Data("not a jpeg".utf8).write(to: folder.appendingPathComponent("002-two.jpg"))
        let unreadable = try #require(throws: StockPhotoError.self) { try StockPhotoLibrary.load(folder: folder) }
        #expect(unreadable.description.contains("002-two.jpg"))
    }
}
