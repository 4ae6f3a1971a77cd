import Foundation
import Testing

@testable import Backdrop

@Suite("Stock photos")
struct StockPhotoTests {
    @Test func shippedLibraryHasEveryPhotoCredited() throws {
        let library = try StockPhotoLibrary.load(folder: Fixtures.stockFolder)
        #expect(library.entries.count >= 8)
        for entry in library.entries {
            #expect(entry.size == PixelSize(width: 640, height: 1136), "the @2x file is preferred")
            #expect(entry.file.lastPathComponent.hasSuffix("@2x.png"))
            #expect(!entry.photo.attribution.author.isEmpty && entry.photo.attribution.licenseURL.hasPrefix("https://"))
        }
    }

    @Test func scanAcceptsGapsIgnoresOtherFilesAndPrefersTheLargest() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let small = Array(buffer: try PNGEncoder.encode(solid(32, 57, (255, 0, 0))))
        let large = Array(buffer: try PNGEncoder.encode(solid(64, 114, (0, 0, 255))))
        try Data(small).write(to: folder.appendingPathComponent("007-StockPhoto-320x568.png"))
        try Data(large).write(to: folder.appendingPathComponent("007-StockPhoto-320x568@2x.png"))
        try Data(small).write(to: folder.appendingPathComponent("042-StockPhoto-320x568.png"))
        try Data(small).write(to: folder.appendingPathComponent("notes.png"))
        try Data("junk".utf8).write(to: folder.appendingPathComponent("1-StockPhoto-320x568.png"))
        try Data(
            """
            | number | title | author | licence | licence URL | source |
            |---|---|---|---|---|---|
            | 007 | Seven | Ann | CC0 1.0 | https://creativecommons.org/publicdomain/zero/1.0/ | https://example.org/7 |
            | 042 | Forty-two | Bo | CC BY 4.0 | https://creativecommons.org/licenses/by/4.0/ | https://example.org/42 |
            """.utf8
        ).write(to: folder.appendingPathComponent("CREDITS.md"))
        let library = try StockPhotoLibrary.load(folder: folder)
        #expect(library.entries.map(\.number) == [7, 42])
        #expect(library.entries[0].size == PixelSize(width: 64, height: 114))
        #expect(library.entries[1].photo.attribution.title == "Forty-two")
        #expect(library.entries[1].photo.id == "stock-042")
    }

    @Test func missingEmptyOrUncreditedFoldersAreRefused() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try #require(throws: StockPhotoError.self) { try StockPhotoLibrary.load(folder: folder.appendingPathComponent("nope")) }
        #expect(missing.description.contains("does not exist"))
        let empty = try #require(throws: StockPhotoError.self) { try StockPhotoLibrary.load(folder: folder) }
        #expect(empty.description.contains("no stock photos"))
        try Data(Array(buffer: try PNGEncoder.encode(solid(8, 8, (1, 1, 1))))).write(to: folder.appendingPathComponent("001-StockPhoto-320x568.png"))
        try Data("| 002 | x | y | z | https://a | https://b |".utf8).write(to: folder.appendingPathComponent("CREDITS.md"))
        let uncredited = try #require(throws: StockPhotoError.self) { try StockPhotoLibrary.load(folder: folder) }
        #expect(uncredited.description.contains("001"))
        try Data("not a png".utf8).write(to: folder.appendingPathComponent("002-StockPhoto-320x568.png"))
        #expect(throws: StockPhotoError.self) { try StockPhotoLibrary.load(folder: folder) }
    }
}
