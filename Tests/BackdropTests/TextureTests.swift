import Testing

@testable import Backdrop

/// Sources that repeat where the scanline deflate does not look (Tools/make_textures.py: lines, checks, stripes, a
/// tile of noise, dither), rendered as the service renders them: no PNG may be over 1.1x what libdeflate level 1 writes
/// for the same pixels.
@Suite("PNG size on textures")
struct TextureTests {
    static let textures = [
        "diagonal-lines", "slanted-lines", "checkerboard", "fine-checkerboard", "horizontal-stripes", "vertical-stripes",
        "noise-tile", "dithered-gradient",
    ]

    @Test("each texture at 2048x1953, 2048x640, 1x2048 and 390x844, blur 0, 0.5 and 1", arguments: textures)
    func boundedByLibdeflate(_ texture: String) throws {
        let source = EncodedImage(bytes: try Fixtures.bytes("textures/\(texture).png"), variant: "texture")
        let sizes = [
            PixelSize(width: 2048, height: 1953), PixelSize(width: 2048, height: 640), PixelSize(width: 1, height: 2048),
            PixelSize(width: 390, height: 844),
        ]
        for size in sizes {
            let prepared = try PreparedImages.make(from: source, size: size, style: .light, limits: DecodeLimits())
            for hundredths in [0, 50, 100] {
                let scanline = Array(buffer: try prepared.png(hundredths: hundredths, compressor: .scanline))
                let libdeflate = try prepared.png(hundredths: hundredths, compressor: .libdeflate).readableBytes
                #expect(
                    Double(scanline.count) <= Double(libdeflate) * 1.1,
                    "\(texture) at \(size), blur \(hundredths)%: \(scanline.count) bytes against libdeflate's \(libdeflate)"
                )
                #expect(try PNGDecoder.decode(scanline) == prepared.picture(hundredths: hundredths))
            }
        }
    }
}
