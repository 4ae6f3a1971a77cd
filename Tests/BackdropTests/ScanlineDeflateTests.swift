import BackdropLab
import CDeflateProof
import CPNG
import Testing

@testable import Backdrop

/// Backdrop's own deflate (Sources/CPNG/scanline_deflate.c), proven as compressors are: a seeded round trip through
/// zlib, libdeflate and libpng that crosses every code it writes, its codes against RFC 1951's table, the vector and
/// scalar searches byte for byte, and shapes chosen to reach each path. `make test` runs the round trip again under
/// AddressSanitizer and UndefinedBehaviorSanitizer (Tests/deflate).
@Suite("Scanline deflate")
struct ScanlineDeflateTests {
    /// The seed `make test`'s sanitizer run uses too.
    static let seed: UInt64 = 20_261_125

    @Test("4,000 seeded random streams and 2,000 PNGs read back bit-exact by zlib, libdeflate and libpng")
    func seededRoundTrip() throws {
        var counts = bd_proof_counts()
        var message = [CChar](repeating: 0, count: 512)
        let status = bd_proof_run(Self.seed, 4000, 2000, &counts, &message, message.count)
        let failure = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(status == 0, "seed \(Self.seed): \(failure)")
        #expect(counts.streams == 4000 && counts.pngs == 2000)
        // Every length code the compressor writes (matches start at 4 bytes, so never code 257, length 3), every
        // distance code, each kind of block, the API's widths at both edges and rows past the window.
        let lengths = withUnsafeBytes(of: counts.length_codes) { Array($0.bindMemory(to: UInt64.self)) }
        let distances = withUnsafeBytes(of: counts.distance_codes) { Array($0.bindMemory(to: UInt64.self)) }
        let widths = withUnsafeBytes(of: counts.widths) { Array($0.bindMemory(to: UInt64.self)) }
        #expect(lengths[0] == 0)
        #expect(
            lengths.dropFirst().allSatisfy { $0 > 0 },
            "length codes never written: \(lengths.indices.filter { $0 > 0 && lengths[$0] == 0 }.map { 257 + $0 })"
        )
        #expect(distances.allSatisfy { $0 > 0 }, "distance codes never written: \(distances.indices.filter { distances[$0] == 0 })")
        #expect(counts.coded_blocks > 0 && counts.stored_blocks > 0 && counts.full_blocks > 0)
        #expect((1...70).allSatisfy { widths[$0] > 0 } && widths[2047] > 0 && widths[2048] > 0)
        #expect(counts.wide_rows > 0)
    }

    /// RFC 1951, section 3.2.5: each length code's extra bits and lengths, and each distance code's.
    static let lengthTable: [(code: Int, extra: Int, first: Int)] = [
        (257, 0, 3), (258, 0, 4), (259, 0, 5), (260, 0, 6), (261, 0, 7), (262, 0, 8), (263, 0, 9), (264, 0, 10),
        (265, 1, 11), (266, 1, 13), (267, 1, 15), (268, 1, 17), (269, 2, 19), (270, 2, 23), (271, 2, 27), (272, 2, 31),
        (273, 3, 35), (274, 3, 43), (275, 3, 51), (276, 3, 59), (277, 4, 67), (278, 4, 83), (279, 4, 99), (280, 4, 115),
        (281, 5, 131), (282, 5, 163), (283, 5, 195), (284, 5, 227), (285, 0, 258),
    ]
    static let distanceTable: [(extra: Int, first: Int)] = [
        (0, 1), (0, 2), (0, 3), (0, 4), (1, 5), (1, 7), (2, 9), (2, 13), (3, 17), (3, 25), (4, 33), (4, 49), (5, 65),
        (5, 97), (6, 129), (6, 193), (7, 257), (7, 385), (8, 513), (8, 769), (9, 1025), (9, 1537), (10, 2049),
        (10, 3073), (11, 4097), (11, 6145), (12, 8193), (12, 12289), (13, 16385), (13, 24577),
    ]

    @Test("every length 3-258 and distance 1-32,768 gets RFC 1951's code and extra bits")
    func codesMatchTheRFC() {
        for length in 3...258 {
            // Length 258 has a code of its own (285), though 284's range would reach it.
            let row = length == 258 ? Self.lengthTable[28] : Self.lengthTable.dropLast().last { $0.first <= length }!
            var bits: UInt32 = 0
            var value: UInt32 = 0
            let code = bd_deflate_length_code(UInt32(length), &bits, &value)
            #expect(code == Int32(row.code) && bits == row.extra && value == length - row.first, "length \(length)")
            #expect(Int(value) < 1 << bits || bits == 0, "length \(length)")
        }
        for distance in 1...32768 {
            let code = Self.distanceTable.lastIndex { $0.first <= distance }!
            var bits: UInt32 = 0
            var value: UInt32 = 0
            #expect(bd_deflate_distance_code(UInt32(distance), &bits, &value) == Int32(code), "distance \(distance)")
            #expect(bits == Self.distanceTable[code].extra && value == distance - Self.distanceTable[code].first && value < 1 << bits || bits == 0)
        }
        var bits: UInt32 = 0
        var value: UInt32 = 0
        #expect(bd_deflate_length_code(2, &bits, &value) == -1 && bd_deflate_length_code(259, &bits, &value) == -1)
        #expect(bd_deflate_distance_code(0, &bits, &value) == -1 && bd_deflate_distance_code(32769, &bits, &value) == -1)
    }

    @Test("the SSE2 and scalar searches write the same bytes for the stock photos' filtered rows")
    func vectorAndScalarAgree() throws {
        for number in 0..<9 {
            let photo = try Fixtures.stockPhoto(number)
            let stride = photo.width * 3
            var filtered = [UInt8](repeating: 0, count: (stride + 1) * photo.height)
            var candidate = [UInt8](repeating: 0, count: stride + 1)
            photo.pixels.withUnsafeBufferPointer { pixels in
                for y in 0..<photo.height {
                    let row = pixels.baseAddress! + stride * y
                    filtered.withUnsafeMutableBufferPointer { out in
                        bd_png_filter_up_or_paeth(row, y > 0 ? row - stride : nil, stride, out.baseAddress! + (stride + 1) * y, &candidate)
                    }
                }
            }
            var streams = [[UInt8]]()
            for search in [BD_SCANLINE_VECTOR, BD_SCANLINE_SCALAR] {
                var out = [UInt8](repeating: 0, count: bd_scanline_deflate_bound(filtered.count))
                var report = bd_scanline_report()
                let length = bd_scanline_deflate(filtered, filtered.count, stride + 1, 3, search, &out, &report)
                streams.append(Array(out.prefix(length)))
            }
            #expect(!streams[0].isEmpty && streams[0] == streams[1], "stock photo \(number)")
        }
    }

    func roundTrip(_ image: RGBImage, filter: PNGLab.Filter? = nil) throws -> Int {
        let png = try Array(buffer: filter.map { try PNGLab(.scanline, filter: $0).encode(image) } ?? PNGEncoder.encode(image))
        #expect(try PNGDecoder.decode(png) == image)
        return png.count
    }

    @Test("noise is stored, a little over its raw size")
    func noiseIsStored() throws {
        var generator = SeededGenerator(seed: 39)
        let image = RGBImage(width: 300, height: 200) { pixels in
            for i in pixels.indices { pixels[i] = UInt8.random(in: 0...255, using: &generator) }
        }
        let raw = (300 * 3 + 1) * 200
        let size = try self.roundTrip(image, filter: PNGLab.Filter.none)
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
            _ = try self.roundTrip(image, filter: PNGLab.Filter.none)
            for filter in [PNGLab.Filter.up, .paeth, .upOrPaeth] {
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
        _ = try self.roundTrip(image, filter: PNGLab.Filter.none)
        _ = try self.roundTrip(image)
    }

    @Test("tiny images take the scalar paths only")
    func tinyImages() throws {
        for (width, height) in [(1, 1), (2, 1), (1, 9), (5, 3), (11, 2)] {
            let image = RGBImage(width: width, height: height) { pixels in
                for i in pixels.indices { pixels[i] = UInt8(i % 4 == 0 ? 7 : 0) }
            }
            _ = try self.roundTrip(image, filter: PNGLab.Filter.none)
            _ = try self.roundTrip(image)
        }
    }

    @Test("the service's photos are about libdeflate level 1's size with the Up filter, or smaller")
    func photosCompressLikeLibdeflate() throws {
        var totals = (scanline: 0, libdeflate: 0)
        for number in 0..<9 {
            let photo = try Fixtures.stockPhoto(number)
            let png = Array(buffer: try PNGEncoder.encode(photo))  // scanline with Up or Paeth
            #expect(try PNGDecoder.decode(png) == photo)
            let libdeflate = try PNGLab(.libdeflate, level: 1, filter: .up).encode(photo).readableBytes
            #expect(Double(png.count) < Double(libdeflate) * 1.05, "stock photo \(number)")
            totals.scanline += png.count
            totals.libdeflate += libdeflate
        }
        #expect(totals.scanline < totals.libdeflate)
    }
}
