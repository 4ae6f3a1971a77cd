import BackdropLab
import Testing

@testable import Backdrop

@Suite("Light effect, resampling and blending")
struct EffectTests {
    @Test("each style's constants are docs/picture.md's", arguments: EffectStyle.allCases)
    func constantsAreTheDocumentedOnes(_ style: EffectStyle) {
        let readme = ReferenceEffect.constants(style)
        #expect(style.radiusPoints == readme.radiusPoints)
        #expect(style.saturation == readme.saturation)
        #expect(style.tint?.white ?? 0 == readme.tint.white && style.tint?.alpha ?? 0 == readme.tint.alpha)
        for height in [568, 1136, 1953, 41] {
            #expect(EffectStyle.boxWidth(radius: style.radius(outputHeight: height)) == ReferenceEffect.boxWidth(style, height: height))
        }
    }

    @Test func boxWidthFollowsTheDefinition() {
        #expect(EffectStyle.boxWidth(radius: 60) == 113)
        #expect(EffectStyle.boxWidth(radius: 30) == 57)
        #expect(EffectStyle.boxWidth(radius: 40) == 75)  // 75.7 -> 75, odd
        #expect(EffectStyle.boxWidth(radius: 10) == 19)  // 19.3 -> 19
        #expect(EffectStyle.boxWidth(radius: 2) == 5)  // 4.26 -> 4, even -> 5
        #expect(EffectStyle.light.radius(outputHeight: 1136) == 60)
        #expect(EffectStyle.dark.radius(outputHeight: 568) == 20)
    }

    @Test("within 40 dB of the floating-point definition on real photos (640x1136, light)", arguments: [0, 4, 7])
    func fidelityFullSize(_ number: Int) throws {
        let sharp = try Fixtures.stockPhoto(number)
        let prepared = PreparedImages(sharp: sharp, style: .light)
        for blur in [100, 50] {
            let value = psnr(prepared.blended(hundredths: blur), ReferenceEffect.render(sharp, style: .light, blur: Double(blur) / 100))
            #expect(value >= 40, "photo \(number) blur \(blur): \(value) dB")
        }
    }

    @Test("within 40 dB for every style and other sizes", arguments: EffectStyle.allCases)
    func fidelityStyles(_ style: EffectStyle) throws {
        for (number, size) in [
            (1, PixelSize(width: 320, height: 568)), (6, PixelSize(width: 300, height: 200)), (2, PixelSize(width: 64, height: 90)),
        ] {
            let sharp = CoverCrop.apply(try Fixtures.stockPhoto(number), to: size)
            let ours = Blend.mix(sharp: sharp, effect: LightEffect.apply(to: sharp, style: style), hundredths: 100)
            let value = psnr(ours, ReferenceEffect.render(sharp, style: style, blur: 1))
            #expect(value >= 40, "\(style) \(size): \(value) dB")
        }
    }

    @Test func blendEndsAreExactAndTheMiddleIsTheMean() {
        let a = solid(4, 3, (0, 100, 255))
        let b = solid(4, 3, (200, 100, 55))
        #expect(Blend.mix(sharp: a, effect: b, hundredths: 0) == a)
        #expect(Blend.mix(sharp: a, effect: b, hundredths: 100) == b)
        #expect(Blend.mix(sharp: a, effect: b, hundredths: 50).pixel(x: 2, y: 1) == (100, 100, 155))
        #expect(Blend.mix(sharp: a, effect: b, hundredths: 25).pixel(x: 0, y: 0) == (50, 100, 205))
    }

    @Test func blurZeroIsTheCoverCroppedPhotoAndOneIsTheEffect() throws {
        let sharp = CoverCrop.apply(try Fixtures.stockPhoto(5), to: PixelSize(width: 200, height: 300))
        let prepared = PreparedImages(sharp: sharp, style: .light)
        #expect(prepared.blended(hundredths: 0) == sharp)
        #expect(prepared.blended(hundredths: 100) == prepared.effect)
        #expect(prepared.blended(hundredths: 100) != sharp)
    }

    @Test func coverCropProducesExactlyTheAskedSize() throws {
        let photo = try Fixtures.stockPhoto(8, retina: false)
        for size in [
            PixelSize(width: 1, height: 1), PixelSize(width: 2048, height: 2048), PixelSize(width: 2048, height: 1),
            PixelSize(width: 1, height: 2048), PixelSize(width: 640, height: 1136), PixelSize(width: 333, height: 77),
        ] {
            let out = CoverCrop.apply(photo, to: size)
            #expect(out.width == size.width && out.height == size.height)
            #expect(out.pixels.count == size.pixelCount * 3)
        }
    }

    /// The filter written plainly (each output pixel, each channel, each tap, from the same 8-bit weights): the SIMD
    /// and vectorised passes must give exactly its bytes, the image's last row and one-row images included.
    static func referenceCrop(_ image: RGBImage, to size: PixelSize) -> RGBImage {
        let scale = max(Double(size.width) / Double(image.width), Double(size.height) / Double(image.height))
        let columns = ResampleTaps(
            sourceLength: image.width,
            outputLength: size.width,
            scale: scale,
            offset: (Double(image.width) - Double(size.width) / scale) / 2
        )
        let rows = ResampleTaps(
            sourceLength: image.height,
            outputLength: size.height,
            scale: scale,
            offset: (Double(image.height) - Double(size.height) / scale) / 2
        )
        var horizontal = [UInt8](repeating: 0, count: image.height * size.width * 3)
        for y in 0..<image.height {
            for x in 0..<size.width {
                for c in 0..<3 {
                    var sum = Int32(ResampleTaps.half)
                    for t in 0..<columns.taps {
                        let source = Int(columns.indices[x * columns.taps + t])
                        sum += Int32(columns.weights[x * columns.taps + t]) * Int32(image.pixels[(y * image.width + source) * 3 + c])
                    }
                    horizontal[(y * size.width + x) * 3 + c] = Self.clampByte(sum >> Int32(ResampleTaps.shift))
                }
            }
        }
        var out = [UInt8](repeating: 0, count: size.pixelCount * 3)
        for y in 0..<size.height {
            for i in 0..<(size.width * 3) {
                var sum = Int32(ResampleTaps.half)
                for t in 0..<rows.taps {
                    sum += Int32(rows.weights[y * rows.taps + t]) * Int32(horizontal[Int(rows.indices[y * rows.taps + t]) * size.width * 3 + i])
                }
                out[y * size.width * 3 + i] = Self.clampByte(sum >> Int32(ResampleTaps.shift))
            }
        }
        return RGBImage(width: size.width, height: size.height, pixels: out)
    }

    static func clampByte(_ value: Int32) -> UInt8 { UInt8(min(max(value, 0), 255)) }

    @Test func coverCropGivesThePlainFiltersBytes() throws {
        var generator = SeededGenerator(seed: 41)  // fixed, so that a failure replays
        let noise = { (width: Int, height: Int) in
            RGBImage(width: width, height: height, pixels: (0..<(width * height * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        let photo = try Fixtures.stockPhoto(3, retina: false)
        for (image, size) in [
            (noise(1024, 576), PixelSize(width: 640, height: 1136)),  // enlarged: two taps
            (noise(683, 1024), PixelSize(width: 640, height: 1136)),
            (noise(2000, 1500), PixelSize(width: 640, height: 1136)),  // reduced: three taps and more
            (noise(997, 1), PixelSize(width: 31, height: 3)),  // one source row: every row the last
            (noise(5, 7), PixelSize(width: 64, height: 64)),
            (photo, PixelSize(width: 333, height: 77)),
        ] {
            let (ours, plain) = (CoverCrop.apply(image, to: size).pixels, Self.referenceCrop(image, to: size).pixels)
            let firstDifference = ours.count == plain.count ? ours.indices.first { ours[$0] != plain[$0] } : 0
            #expect(ours.count == plain.count && firstDifference == nil, "\(image.width)x\(image.height) to \(size): byte \(firstDifference ?? -1)")
        }
    }

    /// The 8-bit weights and the rounding between the passes cost at most two levels against the same filter in exact
    /// arithmetic (real weights, no rounding until the end), and under half a level on average.
    @Test func coverCropIsCloseToExactArithmetic() throws {
        var generator = SeededGenerator(seed: 42)  // fixed, so that a failure replays
        let noise = { (width: Int, height: Int) in
            RGBImage(width: width, height: height, pixels: (0..<(width * height * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        func exactWeights(_ sourceLength: Int, _ outputLength: Int, _ scale: Double, _ offset: Double) -> [[(Int, Double)]] {
            let support = max(1.0, 1.0 / scale)
            return (0..<outputLength).map { i in
                let centre = offset + (Double(i) + 0.5) / scale
                let first = Int((centre - support - 0.5).rounded(.down)) + 1
                let raw = (first...(first + Int((2 * support).rounded(.up)))).map { j in
                    (min(max(j, 0), sourceLength - 1), max(0, 1 - abs(Double(j) + 0.5 - centre) / support))
                }
                let total = raw.reduce(0) { $0 + $1.1 }
                return raw.map { ($0.0, $0.1 / total) }
            }
        }
        for (image, size) in [
            (noise(1024, 576), PixelSize(width: 640, height: 1136)),
            (noise(2000, 1500), PixelSize(width: 700, height: 900)),  // reduced by 1.67x: four taps
            (try Fixtures.stockPhoto(3, retina: false), PixelSize(width: 333, height: 77)),
        ] {
            let scale = max(Double(size.width) / Double(image.width), Double(size.height) / Double(image.height))
            let columns = exactWeights(image.width, size.width, scale, (Double(image.width) - Double(size.width) / scale) / 2)
            let rows = exactWeights(image.height, size.height, scale, (Double(image.height) - Double(size.height) / scale) / 2)
            let ours = CoverCrop.apply(image, to: size)
            var (worst, total) = (0.0, 0.0)
            for y in 0..<size.height {
                for x in 0..<size.width {
                    for c in 0..<3 {
                        var sum = 0.0
                        for (row, wy) in rows[y] {
                            for (column, wx) in columns[x] { sum += wy * wx * Double(image.pixels[(row * image.width + column) * 3 + c]) }
                        }
                        let difference = abs(Double(ours.pixels[(y * size.width + x) * 3 + c]) - sum)
                        (worst, total) = (max(worst, difference), total + difference)
                    }
                }
            }
            let mean = total / Double(size.pixelCount * 3)
            #expect(worst <= 2 && mean < 0.5, "\(image.width)x\(image.height) to \(size): worst \(worst), mean \(mean)")
        }
    }

    /// A reduction by 2x or more is box-shrunk first: whatever the sizes, no weight goes wrong (a trap or aliasing), each
    /// output pixel is close to the mean of the source block it covers, and the crop stays centred.
    @Test func largeReductionsAverageTheirBlocks() {
        // Left and right quarters black, the middle half a ramp: any crop that is centred sees no black.
        let (width, height) = (1201, 203)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in (width / 4)..<(width - width / 4) {
                let v = UInt8(40 + (x - width / 4) * 170 / (width / 2))
                for c in 0..<3 { pixels[(y * width + x) * 3 + c] = v }
            }
        }
        let ramp = RGBImage(width: width, height: height, pixels: pixels)
        for size in [
            PixelSize(width: 1, height: 1), PixelSize(width: 2, height: 1), PixelSize(width: 3, height: 3),
            PixelSize(width: 17, height: 29), PixelSize(width: 1, height: 60), PixelSize(width: 5, height: 101),
        ] {
            let out = CoverCrop.apply(ramp, to: size)
            #expect(out.width == size.width && out.height == size.height)
            // The crop spans height / size.height source rows per output row: centred, its columns lie in the ramp.
            let span = Double(height) / Double(size.height) * Double(size.width)
            let first = (Double(width) - span) / 2
            for x in 0..<size.width {
                let centre = first + (Double(x) + 0.5) * span / Double(size.width) - Double(width / 4)
                let expected = 40 + centre * 170 / Double(width / 2)
                let value = Double(out.pixel(x: x, y: size.height / 2).r)
                #expect(abs(value - expected) <= 6, "\(size) pixel \(x): \(value), about \(expected)")
            }
        }
        // Every size from one pixel up, square and not, from an image with an odd size: right size, no trap.
        for w in stride(from: 1, through: 64, by: 7) {
            for h in stride(from: 1, through: 64, by: 9) {
                let out = CoverCrop.apply(ramp, to: PixelSize(width: w, height: h))
                #expect(out.pixels.count == w * h * 3)
            }
        }
    }

    @Test func coverCropKeepsTheCentre() {
        // Left third red, middle green, right third blue; a square crop keeps only green.
        var pixels = [UInt8]()
        for _ in 0..<100 {
            for x in 0..<300 { pixels += x < 100 ? [255, 0, 0] : x < 200 ? [0, 255, 0] : [0, 0, 255] }
        }
        let out = CoverCrop.apply(RGBImage(width: 300, height: 100, pixels: pixels), to: PixelSize(width: 50, height: 50))
        for y in [0, 25, 49] {
            for x in 2...47 { #expect(out.pixel(x: x, y: y) == (0, 255, 0)) }
            // At the crop's edges the filter reaches one source pixel beyond it, as any non-aliasing filter does.
            for x in [0, 49] { #expect(out.pixel(x: x, y: y).g > 200) }
        }
    }

    @Test func shrinkingAveragesInsteadOfAliasing() {
        // A one-pixel checkerboard shrunk 4x must come out mid-grey, not black or white.
        var pixels = [UInt8]()
        for y in 0..<400 {
            for x in 0..<400 {
                let v: UInt8 = (x + y) % 2 == 0 ? 255 : 0
                pixels += [v, v, v]
            }
        }
        let out = CoverCrop.apply(RGBImage(width: 400, height: 400, pixels: pixels), to: PixelSize(width: 100, height: 100))
        #expect(out.pixels.allSatisfy { (120...135).contains($0) })
    }

    @Test func uniformStaysUniform() {
        let out = CoverCrop.apply(solid(37, 23, (12, 34, 56)), to: PixelSize(width: 640, height: 1136))
        #expect(out.pixels == solid(640, 1136, (12, 34, 56)).pixels)
        let effect = LightEffect.apply(to: solid(64, 64, (128, 128, 128)), style: .none)
        #expect(effect.pixels.allSatisfy { $0 == 128 })
    }
}
