import Testing

@testable import Backdrop

@Suite("PNG encoding and decoding")
struct PNGCodecTests {
    static let options: [PNGOptions] =
        PNGOptions.Filter.allCases.flatMap { filter in
            [.scanline, .libdeflate, .libpng].map { PNGOptions(encoder: $0, level: 1, filter: filter) }
        } + [PNGOptions(encoder: .libdeflate, level: 12, filter: .paeth), PNGOptions(encoder: .libpng, level: 9, filter: .adaptive)]

    @Test("round trip is lossless through libpng's reader", arguments: options)
    func roundTrip(_ options: PNGOptions) throws {
        let photo = CoverCrop.apply(try Fixtures.stockPhoto(3, retina: false), to: PixelSize(width: 97, height: 61))
        let png = Array(buffer: try PNGEncoder.encode(photo, options: options))
        #expect(PNGDecoder.isPNG(png))
        #expect(try PNGDecoder.decode(png) == photo)
    }

    @Test("blending while encoding equals blending then encoding", arguments: PNGOptions.Encoder.allCases)
    func fusedBlend(_ encoder: PNGOptions.Encoder) throws {
        let sharp = CoverCrop.apply(try Fixtures.stockPhoto(2, retina: false), to: PixelSize(width: 131, height: 77))
        let effect = LightEffect.apply(to: sharp, style: .dark)
        let prepared = PreparedImages(sharp: sharp, effect: effect)
        for hundredths in [0, 1, 33, 50, 99, 100] {
            for filter in PNGOptions.Filter.allCases {
                let png = Array(buffer: try prepared.png(hundredths: hundredths, options: PNGOptions(encoder: encoder, level: 1, filter: filter)))
                #expect(try PNGDecoder.decode(png) == Blend.mix(sharp: sharp, effect: effect, hundredths: hundredths), "\(hundredths) \(filter)")
            }
        }
    }

    @Test("the reduced effect enlarged row by row while encoding equals the enlarged effect", arguments: PNGOptions.Encoder.allCases)
    func fusedEnlargeAndBlend(_ encoder: PNGOptions.Encoder) throws {
        let sharp = CoverCrop.apply(try Fixtures.stockPhoto(4, retina: false), to: PixelSize(width: 203, height: 311))
        let effect = LightEffect.apply(to: sharp, style: .light)
        let prepared = PreparedImages(sharp: sharp, style: .light)
        #expect(prepared.effect == effect)
        for hundredths in [1, 50, 99, 100] {
            for filter in [PNGOptions.Filter.up, .upOrPaeth] {
                let png = Array(buffer: try prepared.png(hundredths: hundredths, options: PNGOptions(encoder: encoder, level: 1, filter: filter)))
                #expect(try PNGDecoder.decode(png) == Blend.mix(sharp: sharp, effect: effect, hundredths: hundredths), "\(hundredths) \(filter)")
            }
        }
    }

    @Test("a prepared photo keeps its effect at the blur's reduced size, counted before it is made")
    func preparedEffectIsSmall() throws {
        let sharp = try Fixtures.stockPhoto(0)
        for style in EffectStyle.allCases {
            let size = PixelSize(width: sharp.width, height: sharp.height)
            #expect(ReducedEffect.byteCount(size: size, style: style) == LightEffect.reduced(sharp, style: style).byteCount, "\(style)")
        }
        let prepared = PreparedImages(sharp: sharp, style: .light)
        #expect(prepared.byteCount < sharp.byteCount + sharp.byteCount / 10)
        #expect(prepared.byteCount > sharp.byteCount)
    }

    @Test func oddSizesRoundTrip() throws {
        for (w, h) in [(1, 1), (1, 7), (7, 1), (3, 2)] {
            var image = solid(w, h, (10, 200, 30))
            image.pixels[0] = 255
            #expect(try PNGDecoder.decode(Array(buffer: try PNGEncoder.encode(image))) == image)
        }
    }

    @Test func corruptAndForeignPNGsAreErrors() throws {
        let png = Array(buffer: try PNGEncoder.encode(solid(20, 20, (1, 2, 3))))
        #expect(throws: ImagingError.self) { try PNGDecoder.decode(Array(png.prefix(png.count / 2))) }
        var flipped = png
        flipped[40] ^= 0xFF  // inside IDAT: CRC no longer matches
        #expect(throws: ImagingError.self) { try PNGDecoder.decode(flipped) }
        #expect(throws: ImagingError.self) { try PNGDecoder.decode(Array("GIF89a".utf8)) }
    }

    @Test func pixelLimitIsCheckedBeforeDecoding() throws {
        let png = Array(buffer: try PNGEncoder.encode(solid(300, 200, (1, 2, 3))))
        let error = try #require(throws: ImagingError.self) { try PNGDecoder.decode(png, limits: DecodeLimits(maxPixels: 50_000)) }
        #expect(error.isTooLarge)
    }
}

extension PNGOptions: CustomTestStringConvertible {
    public var testDescription: String { "\(self.encoder.rawValue) level \(self.level) \(self.filter.rawValue)" }
}
