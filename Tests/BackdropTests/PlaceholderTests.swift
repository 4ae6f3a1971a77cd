import Foundation
import Testing

@testable import Backdrop

@Suite("Placeholders")
struct PlaceholderTests {
    /// A smooth gradient with a sawtooth in blue: every coefficient matters.
    static func synthetic(width: Int, height: Int) -> RGBImage {
        RGBImage(width: width, height: height) { pixels in
            for y in 0..<height {
                for x in 0..<width {
                    let o = (y * width + x) * 3
                    pixels[o] = UInt8(x * 255 / (width - 1))
                    pixels[o + 1] = UInt8(y * 255 / (height - 1))
                    pixels[o + 2] = UInt8(((x + y) * 13) % 256)
                }
            }
        }
    }

    // Pinned from the reference encoders on the same pixels: evanw/thumbhash's js/thumbhash.js under node
    // (Tests/support/thumbhash_reference.mjs) and the blurhash package on PyPI (1.1.5), by Tools/placeholder_vectors.py.
    @Test(
        "ThumbHash writes the reference encoder's bytes",
        arguments: [
            (37, 23, "HwgKPJpwhndweIZ3V4aBgAj4eA=="),
            (23, 37, "H/gJPBpwBnd4eHaFdniAgQj4dw=="),
            // Square, 3:1, 1:3 and 4:1: past 2.8:1 the short side's luminance components meet the floor of three.
            (32, 32, "4AcKNxqAdndwd4h4aGdndniHBwd4gI8H"),
            (60, 20, "4PcJOpqAh4dweIiHgYAI+Hg="),
            (20, 60, "4AcKOhqAcIeId4iHgIEI+Hc="),
            (100, 25, "3/cJOppwhneAh3h3gHAI+Hg="),
        ]
    )
    func thumbHashMatchesTheReference(_ width: Int, _ height: Int, _ expected: String) {
        #expect(ThumbHash.base64(Self.synthetic(width: width, height: height)) == expected)
    }

    @Test(
        "BlurHash writes the reference encoder's string",
        arguments: [
            (37, 23, 4, 3, "L$Hewc2pwwX4l~WUjvf4gHfgfOfd"),
            (37, 23, 3, 4, "T$Hewc2pwwl~WUjvgHfgfOn,Wqjr"),
            (23, 37, 4, 3, "L$HoE|2twvbbl_aejqe=gIflfOfh"),
            (23, 37, 3, 4, "T$HoE|2twvl_aejqgIflfOnia^jn"),
            (32, 32, 4, 3, "L$HetW2qwyX3l{WDjre:gKfhfSfe"),
            (32, 32, 3, 4, "T$HetW2qwyl{WDjrgKfhfSnhWojo"),
            (60, 20, 4, 3, "L$HVF@2W$5SgqRWUjtaxgJfgfRfg"),
            (60, 20, 3, 4, "T$HVF@2W$5qRWUjtgJfgfRsEWpjt"),
            (20, 60, 4, 3, "L$HoB[2?wxbvhnaejqe;gcfjfRfj"),
            (20, 60, 3, 4, "T$HoB[2?wxhnaejqgcfjfRi~axjq"),
            (100, 25, 4, 3, "L%HVF?2W$4Sdl}WXjsa#gIfOfPfO"),
            (100, 25, 3, 4, "T%HVF?2W$4l}WXjsgIfOfPnmWoju"),
        ]
    )
    func blurHashMatchesTheReference(_ width: Int, _ height: Int, _ x: Int, _ y: Int, _ expected: String) {
        #expect(BlurHash.encode(Self.synthetic(width: width, height: height), x: x, y: y) == expected)
    }

    @Test("BlurHash takes 3 components across and 4 down, as measured")
    func blurHashComponents() {
        #expect(BlurHash.components == (3, 4))
    }

    @Test("a layer wider than 100 pixels is averaged down to fit ThumbHash's encoder")
    func thumbHashOfAWideLayer() {
        let wide = Self.synthetic(width: 250, height: 4)
        let reduced = ThumbHash.fitted(wide)
        #expect(reduced.width == 100 && reduced.height == 2)
        #expect(ThumbHash.fitted(Self.synthetic(width: 100, height: 100)) == Self.synthetic(width: 100, height: 100))
        #expect(ThumbHash.encode(wide) == ThumbHash.encode(reduced))
        // A flat image reduces to itself, whatever the block sizes.
        let flat = RGBImage(width: 301, height: 7, pixels: [UInt8](repeating: 90, count: 301 * 7 * 3))
        #expect(Set(ThumbHash.fitted(flat).pixels) == [90])
    }

    @Test("the colour is the mean of the layer, as #rrggbb")
    func meanColor() {
        let image = RGBImage(width: 2, height: 1, pixels: [0, 10, 255, 3, 20, 255])
        #expect(Placeholders.meanColor(image) == "#020fff")
        #expect(Placeholders.meanColor(Self.synthetic(width: 37, height: 23)) == "#7f7f7f")  // computed apart, in Python
    }

    @Test("/background.json carries the placeholders of the preview it carries", arguments: [("light", 390, 844), ("dark", 1024, 600)])
    func theJSONCarriesThePreviewsPlaceholders(_ style: String, _ width: Int, _ height: Int) async throws {
        try await TestApp.withApp { client in
            let answer = try await TestApp.get(client, "/background.json?lat=48.85&lon=2.35&width=\(width)&height=\(height)&style=\(style)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
            let images = try #require(json["images"] as? [String: Any])
            let preview = try #require(images["blurredPreview"] as? [String: Any])
            let uri = try #require(preview["uri"] as? String)
            let webp = [UInt8](try #require(Data(base64Encoded: String(uri.dropFirst("data:image/webp;base64,".count)))))
            let small = try decodeImage(webp, as: .webp)
            let expected = Placeholders.make(from: small)
            #expect(images["thumbHash"] as? String == expected.thumbHash)
            #expect(images["blurHash"] as? String == expected.blurHash)
            #expect(images["color"] as? String == expected.color)
            #expect((images["blurHash"] as? String)?.count == 28)
        }
    }
}
