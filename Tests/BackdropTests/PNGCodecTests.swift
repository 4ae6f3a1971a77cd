import BackdropLab
import Testing

@testable import Backdrop

@Suite("PNG encoding and decoding")
struct PNGCodecTests {
    static let writers: [PNGLab] =
        PNGLab.Filter.allCases.flatMap { filter in PNGLab.Compressor.allCases.map { PNGLab($0, level: 1, filter: filter) } }
        + [PNGLab(.libdeflate, level: 12, filter: .paeth), PNGLab(.libpng, level: 9, filter: .adaptive)]

    @Test("the service's writer round-trips losslessly through libpng's reader", arguments: PNGCompressor.allCases)
    func roundTrip(_ compressor: PNGCompressor) throws {
        let photo = CoverCrop.apply(try Fixtures.stockPhoto(3, retina: false), to: PixelSize(width: 97, height: 61))
        let png = Array(buffer: try PNGEncoder.encode(photo, compressor: compressor))
        #expect(PNGDecoder.isPNG(png))
        #expect(try PNGDecoder.decode(png) == photo)
    }

    @Test("the bench's writers round-trip too", arguments: writers)
    func labRoundTrip(_ writer: PNGLab) throws {
        let photo = CoverCrop.apply(try Fixtures.stockPhoto(3, retina: false), to: PixelSize(width: 97, height: 61))
        #expect(try PNGDecoder.decode(Array(buffer: try writer.encode(photo))) == photo)
    }

    @Test("the reduced effect enlarged row by row and blended while encoding equals blending then encoding", arguments: PNGCompressor.allCases)
    func fusedEnlargeAndBlend(_ compressor: PNGCompressor) throws {
        for (number, style) in [(4, EffectStyle.light), (2, .dark)] {
            let sharp = CoverCrop.apply(try Fixtures.stockPhoto(number, retina: false), to: PixelSize(width: 203, height: 311))
            let effect = LightEffect.apply(to: sharp, style: style)
            let prepared = PreparedImages(sharp: sharp, style: style)
            #expect(prepared.effect == effect)
            for hundredths in [0, 1, 33, 50, 99, 100] {
                let png = Array(buffer: try prepared.png(hundredths: hundredths, compressor: compressor))
                #expect(try PNGDecoder.decode(png) == Blend.mix(sharp: sharp, effect: effect, hundredths: hundredths), "\(hundredths)")
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
