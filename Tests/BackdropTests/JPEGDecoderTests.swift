import Testing

@testable import Backdrop

@Suite("JPEG decoding")
struct JPEGDecoderTests {
    @Test("EXIF orientations 1-8 come out upright", arguments: 1...8)
    func orientation(_ n: Int) throws {
        let image = try JPEGDecoder.decode(try Fixtures.bytes("orient-\(n).jpg"))
        #expect(image.width == 48 && image.height == 32)
        #expect(near(image.pixel(x: 5, y: 5), (255, 0, 0)), "top-left should be red")
        #expect(near(image.pixel(x: 40, y: 5), (0, 255, 0)), "top-right should be green")
        #expect(near(image.pixel(x: 5, y: 28), (0, 0, 255)), "bottom-left should be blue")
        #expect(near(image.pixel(x: 40, y: 28), (255, 255, 255)), "bottom-right should be white")
    }

    @Test func orientationIsReadFromTheHeader() throws {
        #expect(try JPEGDecoder.header(of: try Fixtures.bytes("orient-6.jpg")).orientation == .right)
        #expect(try JPEGDecoder.header(of: try Fixtures.bytes("orient-6.jpg")).uprightSize == PixelSize(width: 48, height: 32))
        #expect(try JPEGDecoder.header(of: try Fixtures.bytes("orient-1.jpg")).orientation == .up)
    }

    @Test func grayscaleBecomesRGB() throws {
        let image = try JPEGDecoder.decode(try Fixtures.bytes("gray.jpg"))
        let p = image.pixel(x: 5, y: 5)
        #expect(p.r == p.g && p.g == p.b)
        #expect(near(p, (76, 76, 76)))  // Rec.601 luma of pure red, as the fixture was encoded
        #expect(near(image.pixel(x: 40, y: 28), (255, 255, 255)))
    }

    @Test("Adobe CMYK and YCCK (stored inverted) decode to red", arguments: ["cmyk-red.jpg", "ycck-red.jpg"])
    func cmyk(_ name: String) throws {
        let image = try JPEGDecoder.decode(try Fixtures.bytes(name))
        #expect(near(image.pixel(x: 8, y: 8), (255, 0, 0), tolerance: 8))
    }

    @Test("progressive and restart-marker files decode", arguments: ["progressive.jpg", "restart.jpg"])
    func variants(_ name: String) throws {
        let image = try JPEGDecoder.decode(try Fixtures.bytes(name))
        #expect(near(image.pixel(x: 5, y: 5), (255, 0, 0)))
        #expect(near(image.pixel(x: 40, y: 28), (255, 255, 255)))
    }

    @Test func truncatedDataIsAnError() throws {
        let bytes = try Fixtures.bytes("orient-1.jpg")
        for cut in [bytes.count / 2, bytes.count - 2, 200] {
            #expect(throws: ImagingError.self) { try JPEGDecoder.decode(Array(bytes.prefix(cut))) }
        }
    }

    @Test func corruptScanDataIsAnError() throws {
        var bytes = try Fixtures.bytes("orient-1.jpg")
        // Flip bytes inside the entropy-coded data (after the last marker segment, before EOI).
        let start = bytes.count - 120
        for i in start..<(start + 40) { bytes[i] ^= 0x5A }
        #expect(throws: ImagingError.self) { try JPEGDecoder.decode(bytes) }
    }

    @Test func emptyAndForeignBytesAreErrors() throws {
        #expect(throws: ImagingError.self) { try JPEGDecoder.decode([]) }
        #expect(throws: ImagingError.self) { try JPEGDecoder.decode(Array("<html>not an image</html>".utf8)) }
        #expect(throws: ImagingError.self) { try JPEGDecoder.decode([0xFF, 0xD8, 0xFF]) }
    }

    @Test func hugeDeclaredSizeIsRefusedBeforeDecoding() throws {
        var bytes = try Fixtures.bytes("orient-1.jpg")
        // Rewrite the SOF0 frame header to claim 30000x30000 pixels.
        let sof = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 5] = UInt8(30000 >> 8)
        bytes[sof + 6] = UInt8(30000 & 0xFF)
        bytes[sof + 7] = UInt8(30000 >> 8)
        bytes[sof + 8] = UInt8(30000 & 0xFF)
        let header = try JPEGDecoder.header(of: bytes)
        #expect(header.size == PixelSize(width: 30000, height: 30000))
        let error = try #require(throws: ImagingError.self) { try JPEGDecoder.decode(bytes) }
        #expect(error.isTooLarge)
    }

    @Test func progressiveScanCapIsEnforced() throws {
        let bytes = try Fixtures.bytes("progressive.jpg")
        let error = try #require(throws: ImagingError.self) {
            try JPEGDecoder.decode(bytes, limits: DecodeLimits(maxProgressiveScans: 2))
        }
        #expect(error.isTooLarge)
        #expect(try JPEGDecoder.decode(bytes, limits: DecodeLimits(maxProgressiveScans: 100)).width == 48)
    }

    @Test func dctScalingDecodesOnlyAsLargeAsNeeded() throws {
        #expect(JPEGDecoder.scaleNumerator(for: PixelSize(width: 4000, height: 3000), covering: PixelSize(width: 640, height: 1136)) == 4)
        #expect(JPEGDecoder.scaleNumerator(for: PixelSize(width: 1024, height: 682), covering: PixelSize(width: 640, height: 1136)) == 8)
        #expect(JPEGDecoder.scaleNumerator(for: PixelSize(width: 8000, height: 8000), covering: PixelSize(width: 100, height: 100)) == 1)
        let image = try JPEGDecoder.decode(try Fixtures.bytes("orient-6.jpg"), covering: PixelSize(width: 12, height: 8))
        #expect(image.width == 12 && image.height == 8)  // 1/4 scale, then turned upright
    }
}
