import Testing

@testable import Backdrop

@Suite("Light effect, resampling and blending")
struct EffectTests {
    @Test("each style's constants are the README's", arguments: EffectStyle.allCases)
    func constantsAreTheREADMEs(_ style: EffectStyle) {
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
        let prepared = PreparedImages(sharp: sharp, effect: LightEffect.apply(to: sharp, style: .light))
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
        let prepared = PreparedImages(sharp: sharp, effect: LightEffect.apply(to: sharp, style: .light))
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
