import Foundation
import Synchronization
import Testing

@testable import Backdrop

/// The files the tests read: the bundled fixtures, the shipped stock photos, the test photos, and scratch folders.
enum Fixtures {
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
        return try [UInt8](Data(contentsOf: url))
    }

    /// This file is Tests/BackdropTests/Support/Fixtures.swift.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let stockFolder = repositoryRoot.appendingPathComponent("StockPhotos")

    /// Test photos that were stock photos once (Fixtures/photos/README.md).
    static let photoFolder = repositoryRoot.appendingPathComponent("Tests/BackdropTests/Fixtures/photos")

    /// Photo `number` (a shipped stock photo, else a test photo that was one), cover-cropped to 640x1136 (320x568
    /// without `retina`): test images of the sizes the tests were written for.
    /// Made once per process: many tests use the same few.
    static func stockPhoto(_ number: Int, retina: Bool = true) throws -> RGBImage {
        if let made = Self.stockPhotos.withLock({ $0["\(number)/\(retina)"] }) { return made }
        let prefix = String(format: "%03d-", number)
        let found = [stockFolder, photoFolder].lazy.compactMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                .first { $0.hasPrefix(prefix) && $0.hasSuffix(".jpg") }
                .map { folder.appendingPathComponent($0) }
        }.first
        let url = try #require(found, "no photo \(number)")
        let size = retina ? PixelSize(width: 640, height: 1136) : PixelSize(width: 320, height: 568)
        let image = try JPEGDecoder.decode([UInt8](Data(contentsOf: url)), covering: size)
        let made = CoverCrop.apply(image, to: size)
        Self.stockPhotos.withLock { $0["\(number)/\(retina)"] = made }
        return made
    }

    private static let stockPhotos = Mutex<[String: RGBImage]>([:])

    /// A scratch folder removed when the returned closure runs.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("backdrop-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
