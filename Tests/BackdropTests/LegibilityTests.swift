import Foundation
import HummingbirdTesting
import Testing

@testable import Backdrop

/// The legibility advice and the attention crop, on images whose answers are known; through the API with stock
/// photos. (`Tests/legibility/check_legibility.py` checks both against independent oracles on real photos.)
@Suite("Legibility and the attention crop")
struct LegibilityTests {
    static func flat(_ value: UInt8, width: Int = 60, height: Int = 100) -> RGBImage {
        RGBImage(width: width, height: height, pixels: [UInt8](repeating: value, count: width * height * 3))
    }

    /// WCAG 2 contrast of white or black text over a flat grey `value` under `scrim` (composited in 8-bit sRGB).
    static func contrast(_ value: Int, scrim: Double, light: Bool) -> Double {
        let composed = light ? (Double(value) * (1 - scrim)).rounded() : (Double(value) + Double(255 - value) * scrim).rounded()
        let luminance = SRGB.linear[Int(composed)]
        return light ? 1.05 / (luminance + 0.05) : (luminance + 0.05) / 0.05
    }

    @Test("white and black need no scrim for the text that suits them", arguments: [(UInt8(255), "dark"), (UInt8(0), "light")])
    func extremes(_ value: UInt8, _ text: String) {
        let advice = Legibility(sharp: Self.flat(value), blurred: Self.flat(value))
        for band in [advice.sharp.top, advice.sharp.bottom, advice.blurred.whole] {
            #expect(band.text == text)
            let ink = text == "light" ? band.light : band.dark
            #expect(ink.scrim == 0 && ink.contrast >= 19.9, "\(band)")
        }
    }

    @Test("on a mid grey the scrim is the least that reaches 4.5:1", arguments: [90, 119, 128, 160])
    func leastScrim(_ grey: Int) {
        let band = Legibility(sharp: Self.flat(UInt8(grey)), blurred: Self.flat(UInt8(grey))).sharp.whole
        for (ink, light) in [(band.light, true), (band.dark, false)] {
            #expect(abs(ink.contrast - Self.contrast(grey, scrim: 0, light: light)) < 0.011)
            #expect(Self.contrast(grey, scrim: ink.scrim, light: light) >= Contrast.target, "grey \(grey) light \(light)")
            if ink.scrim > 0 { #expect(Self.contrast(grey, scrim: ink.scrim - 0.02, light: light) < Contrast.aim, "grey \(grey): no lighter scrim") }
        }
        #expect(band.text == (band.light.scrim <= band.dark.scrim ? "light" : "dark"))
    }

    @Test func theBandsAreTheTopAndBottomFifteenPercent() {
        // White at the top 15 rows of 100, black below: the top band is white, the bottom and the whole mostly black.
        var image = Self.flat(0)
        for i in 0..<(60 * 15 * 3) { image.pixels[i] = 255 }
        let layer = Legibility(sharp: image, blurred: image).sharp
        #expect(layer.top.text == "dark" && layer.bottom.text == "light" && layer.whole.light.scrim > 0)
        #expect(layer.whole.light.contrast < 1.1, "the 90th percentile of the whole is the white top")
    }

    /// Seeded grey noise with a bright, saturated block centred at `x`, `y` (fractions).
    static func salient(width: Int, height: Int, x: Double, y: Double, seed: UInt64) -> RGBImage {
        var random = SeededGenerator(seed: seed)
        var image = RGBImage(
            width: width,
            height: height,
            pixels: (0..<(width * height)).flatMap { _ in [UInt8](repeating: UInt8.random(in: 90...150, using: &random), count: 3) }
        )
        let side = min(width, height) / 6
        for row in max(0, Int(y * Double(height)) - side / 2)..<min(height, Int(y * Double(height)) + side / 2) {
            for column in max(0, Int(x * Double(width)) - side / 2)..<min(width, Int(x * Double(width)) + side / 2) {
                let i = (row * width + column) * 3
                (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]) = (224, 150, 110)
            }
        }
        return image
    }

    @Test("the attention crop finds a salient block", arguments: [0.15, 0.4, 0.7, 0.9])
    func attentionFindsTheBlock(_ x: Double) {
        let photo = Self.salient(width: 800, height: 500, x: x, y: 0.5, seed: 38)
        let focus = Attention(photo).focus(cropWidth: 0.45, cropHeight: 1)
        #expect(abs(focus.x - x) <= 2.0 / 32, "block at \(x), focus at \(focus.x)")
        let size = PixelSize(width: 180, height: 250)
        let window = CoverCrop.window(source: PixelSize(width: 800, height: 500), size: size, focus: focus)
        let kept = Double(size.width) / window.scale
        #expect(window.left >= 0 && window.left + kept <= 800.0001, "clamped to the photo")
        #expect(window.left <= x * 800 && x * 800 <= window.left + kept, "the block is in the crop")
        let placed = CoverCrop.place(focus, source: PixelSize(width: 800, height: 500), size: size, cropFocus: focus)
        #expect((0...1).contains(placed.x) && (0...1).contains(placed.y))
    }

    @Test func theCentreFocusCropsAsBefore() {
        let photo = Self.salient(width: 300, height: 200, x: 0.8, y: 0.5, seed: 7)
        let size = PixelSize(width: 90, height: 160)
        let window = CoverCrop.window(source: PixelSize(width: 300, height: 200), size: size)
        #expect(window.left == (300 - 90 / window.scale) / 2 && window.top == 0)
        #expect(CoverCrop.apply(photo, to: size) == CoverCrop.apply(photo, to: size, focus: .centre))
        #expect(CoverCrop.apply(photo, to: size) != CoverCrop.apply(photo, to: size, focus: Focus(x: 0.8, y: 0.5)))
    }

    @Test func theJSONCarriesLegibilityFocusAndCrop() async throws {
        try await TestApp.withStock(at: try TestApp.date(TestApp.noon)) { client in
            let json = try await TestApp.json(client, "\(TestApp.paris)&width=90&height=160")
            #expect(json["crop"] as? String == "attention")
            let focus = try #require(json["focus"] as? [String: Double])
            #expect((0...1).contains(focus["x"] ?? -1) && (0...1).contains(focus["y"] ?? -1))
            let legibility = try #require(json["legibility"] as? [String: [String: [String: Any]]])
            for layer in ["sharp", "blurred"] {
                for region in ["top", "bottom", "whole"] {
                    let band = try #require(legibility[layer]?[region], "\(layer) \(region)")
                    #expect(["light", "dark"].contains(band["text"] as? String ?? ""))
                }
            }
            let centre = try await TestApp.json(client, "\(TestApp.paris)&width=90&height=160&crop=center")
            #expect(centre["crop"] as? String == "centre")
            let images = try #require(centre["images"] as? [String: Any])
            #expect((images["sharp"] as? String)?.contains("&crop=centre&") == true, "cell URLs carry the crop")
            #expect(!((try #require((json["images"] as? [String: Any])?["sharp"] as? String)).contains("crop=")), "not the default")
        }
    }

    @Test("a crop the API does not know is a 400 naming crop", arguments: ["middle", "", "ATTENTION", "centre "])
    func badCrop(_ text: String) async throws {
        try await TestApp.withStock(at: try TestApp.date(TestApp.noon)) { client in
            for path in ["/background", "/background.json"] {
                let query = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
                let answer = try await TestApp.get(client, "\(path)?crop=\(query)")
                let json = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
                #expect(answer.status == .badRequest && json?["parameter"] as? String == "crop", "\(path) crop=\(text)")
            }
        }
    }
}
