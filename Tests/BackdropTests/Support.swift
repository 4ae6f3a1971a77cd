import Foundation
import Synchronization
import Testing

@testable import Backdrop

enum Fixtures {
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
        return try [UInt8](Data(contentsOf: url))
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let stockFolder = repositoryRoot.appendingPathComponent("StockPhotos")

    static func stockPhoto(_ number: Int, retina: Bool = true) throws -> RGBImage {
        let name = String(format: "%03d-StockPhoto-320x568%@.png", number, retina ? "@2x" : "")
        return try PNGDecoder.decode([UInt8](Data(contentsOf: stockFolder.appendingPathComponent(name))))
    }

    /// A scratch folder removed when the returned closure runs.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("backdrop-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Peak signal-to-noise ratio in dB between two images of one size.
func psnr(_ a: RGBImage, _ b: RGBImage) -> Double { a.psnr(against: b) }

func solid(_ width: Int, _ height: Int, _ rgb: (UInt8, UInt8, UInt8)) -> RGBImage {
    var pixels = [UInt8]()
    pixels.reserveCapacity(width * height * 3)
    for _ in 0..<(width * height) { pixels += [rgb.0, rgb.1, rgb.2] }
    return RGBImage(width: width, height: height, pixels: pixels)
}

func near(_ p: (r: UInt8, g: UInt8, b: UInt8), _ q: (Int, Int, Int), tolerance: Int = 12) -> Bool {
    abs(Int(p.r) - q.0) <= tolerance && abs(Int(p.g) - q.1) <= tolerance && abs(Int(p.b) - q.2) <= tolerance
}

struct FixedClock: WallClock {
    let date: Date
    func now() -> Date { self.date }
}

/// A thread-safe count, shareable between tasks.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { self.count.withLock { $0 += 1 } }
    var value: Int { self.count.withLock { $0 } }
}
