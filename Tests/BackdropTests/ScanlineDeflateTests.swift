import Testing

@testable import Backdrop

/// Backdrop's own deflate (Sources/CPNG/scanline_deflate.c), read back by libpng and zlib, which check every code,
/// distance and the Adler-32: images chosen to reach each of its paths.
@Suite("Scanline deflate")
struct ScanlineDeflateTests {
    static let scanline = PNGOptions(encoder: .scanline, level: 1, filter: .up)

    func roundTrip(_ image: RGBImage, filter: PNGOptions.Filter = .up) throws -> Int {
        let png = Array(buffer: try PNGEncoder.encode(image, options: PNGOptions(encoder: .scanline, level: 1, filter: filter)))
        #expect(try PNGDecoder.decode(png) == image)
        return png.count
    }

    @Test("noise is stored, a little over its raw size")
    func noiseIsStored() throws {
        var generator = SystemRandomNumberGenerator()
        let image = RGBImage(width: 300, height: 200) { pixels in
            for i in pixels.indices { pixels[i] = UInt8.random(in: 0...255, using: &generator) }
        }
        let raw = (300 * 3 + 1) * 200
        let size = try self.roundTrip(image, filter: .none)
        #expect(size > raw && size < raw + raw / 100)
    }

    @Test("one colour is matches of the longest length")
    func flatImageIsTiny() throws {
        let size = try self.roundTrip(solid(2000, 900, (12, 200, 99)))
        #expect(size < 2000 * 3 * 900 / 200)
    }

    @Test("gradients, stripes and a checkerboard repeat at the pixel before and the row above")
    func patterns() throws {
        let (width, height) = (517, 301)
        let patterns: [(Int, Int, Int) -> UInt8] = [
            { x, y, c in UInt8(truncatingIfNeeded: x * (c + 1) + y) },  // gradients: Up leaves one pixel repeated
            { x, _, c in UInt8(truncatingIfNeeded: (x / 7) * 40 + c) },  // vertical stripes: Up leaves zeros
            { x, y, c in (x / 3 + y / 3) % 2 == 0 ? 255 : UInt8(c * 9) },  // checkerboard: the row above repeats
        ]
        for pattern in patterns {
            let image = RGBImage(width: width, height: height) { pixels in
                for y in 0..<height {
                    for x in 0..<width {
                        for c in 0..<3 { pixels[(y * width + x) * 3 + c] = pattern(x, y, c) }
                    }
                }
            }
            _ = try self.roundTrip(image, filter: .none)
            for filter in [PNGOptions.Filter.up, .paeth, .upOrPaeth] {
                let size = try self.roundTrip(image, filter: filter)
                #expect(size < width * height * 3 / 4, "\(filter)")
            }
        }
    }

    @Test("rows longer than deflate's window fall back to the other candidates")
    func rowsBeyondTheWindow() throws {
        let (width, height) = (11_000, 6)  // 33,001 bytes a filtered row, past the 32,768-byte window
        let image = RGBImage(width: width, height: height) { pixels in
            for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: (i / 3) % 251 * 7 + i % 3) }
        }
        _ = try self.roundTrip(image, filter: .none)
        _ = try self.roundTrip(image, filter: .up)
    }

    @Test("tiny images take the scalar paths only")
    func tinyImages() throws {
        for (width, height) in [(1, 1), (2, 1), (1, 9), (5, 3), (11, 2)] {
            let image = RGBImage(width: width, height: height) { pixels in
                for i in pixels.indices { pixels[i] = UInt8(i % 4 == 0 ? 7 : 0) }
            }
            _ = try self.roundTrip(image, filter: .none)
        }
    }

    @Test("the default writer's photos are about libdeflate level 1's size with the Up filter, or smaller")
    func photosCompressLikeLibdeflate() throws {
        var totals = (scanline: 0, libdeflate: 0)
        for number in 0..<9 {
            let photo = try Fixtures.stockPhoto(number)
            let png = Array(buffer: try PNGEncoder.encode(photo))  // scanline with Up or Paeth
            #expect(try PNGDecoder.decode(png) == photo)
            let libdeflate = try PNGEncoder.encode(photo, options: PNGOptions(encoder: .libdeflate, level: 1, filter: .up)).readableBytes
            #expect(Double(png.count) < Double(libdeflate) * 1.05, "stock photo \(number)")
            totals.scanline += png.count
            totals.libdeflate += libdeflate
        }
        #expect(totals.scanline < totals.libdeflate)
    }
}
