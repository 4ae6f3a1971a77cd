import BackdropLab
import Testing

@testable import Backdrop

/// The service drives libaom itself (``AVIFEncoder``) so that its fidelity check can measure the encoder's own
/// reconstruction instead of decoding the file again. That holds only while the file is the one libavif writes at the
/// same settings, and the reconstruction is what a decoder reads back from it: both are held here, pixel for pixel and
/// byte for byte, against libavif's own encoder (the bench's ``AVIFLab``) and its decoder (``ReadBack``, dav1d).
@Suite("AVIF encoder")
struct AVIFEncoderTests {
    /// A stock photo's render, sharp and fully blurred, and seeded noise over a gradient at odd sizes (4:2:0's last
    /// chroma column and row cover one pixel).
    static func pictures() throws -> [(name: String, picture: RGBImage)] {
        let prepared = PreparedImages(sharp: try Fixtures.stockPhoto(14, retina: false), style: .light)
        var random = SeededGenerator(seed: 2026)
        func noisy(_ width: Int, _ height: Int) -> RGBImage {
            RGBImage(
                width: width,
                height: height,
                pixels: (0..<width * height * 3).map { i in
                    let x = (i / 3) % width
                    let y = (i / 3) / width
                    return UInt8(clamping: (x * 255 / width + y * 128 / height) / 2 + Int.random(in: 0...90, using: &random))
                }
            )
        }
        return [
            ("stock 14 sharp", prepared.picture(hundredths: 0)), ("stock 14 blurred", prepared.picture(hundredths: 100)),
            ("noise 333x217", noisy(333, 217)), ("noise 64x1", noisy(64, 1)), ("noise 7x9", noisy(7, 9)),
        ]
    }

    @Test func theFileIsLibavifsOwnByteForByte() throws {
        for (name, picture) in try Self.pictures() {
            for (quantizer, speed) in [(0, 10), (12, 10), (33, 10), (63, 10), (33, 6)] {
                var timing = AVIFLab.Timing()
                let libavif = try AVIFLab.encode(picture, quantizer: quantizer, speed: speed, tuning: AVIFLab.Tuning(), timing: &timing)
                let ours = try AVIFEncoder.encode(picture, quantizer: quantizer, speed: speed)
                let (a, b) = (Array(buffer: ours), Array(buffer: libavif))
                let differs = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? (a.count == b.count ? nil : min(a.count, b.count))
                #expect(
                    differs == nil,
                    "\(name), quantizer \(quantizer), speed \(speed): \(a.count) bytes against libavif's \(b.count), first differing at \(differs ?? -1)"
                )
            }
        }
    }

    @Test func theShownPictureIsTheDecodedFilePixelForPixel() throws {
        for (name, picture) in try Self.pictures() {
            for quantizer in [0, 12, 33, 63] {
                let encoded = try AVIFEncoder.encode(picture, quantizer: quantizer, speed: 10, shown: true)
                let shown = try #require(encoded.shown, "\(name), quantizer \(quantizer)")
                let decoded = try ReadBack.decode(encoded.bytes, format: .avif)
                let differing = zip(shown.pixels, decoded.pixels).count { $0 != $1 }
                #expect(differing == 0, "\(name), quantizer \(quantizer): \(differing) bytes differ from the decoded file's")
                #expect(shown.psnr(against: picture) == decoded.psnr(against: picture))
                // Without asking, no picture, and the same file.
                let plain = try AVIFEncoder.encode(picture, quantizer: quantizer, speed: 10, shown: false)
                #expect(plain.shown == nil && plain.bytes == encoded.bytes)
            }
        }
    }

    @Test func badQuantizersAreSwiftErrors() {
        let picture = RGBImage(width: 4, height: 4, pixels: [UInt8](repeating: 90, count: 48))
        for quantizer in [-1, 64] {
            #expect(throws: ImagingError.self) { try AVIFEncoder.encode(picture, quantizer: quantizer, speed: 10) }
        }
    }
}
