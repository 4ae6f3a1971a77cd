import BackdropLab
import Foundation
import Testing

@testable import Backdrop

@Suite("Blurred preview")
struct PreviewTests {
    static let sizes = [
        PixelSize(width: 320, height: 568), PixelSize(width: 640, height: 1136), PixelSize(width: 750, height: 1334),
        PixelSize(width: 1536, height: 2048), PixelSize(width: 2048, height: 1536),
    ]

    @Test(
        "the preview scaled up is within 50 dB of the full-size blur=1 render, in at most 2 kB",
        arguments: EffectStyle.allCases
    )
    func fidelityAndSize(_ style: EffectStyle) throws {
        let photos = [
            try Fixtures.stockPhoto(3), try Fixtures.stockPhoto(7),
            try ImageDecoder.decode(try Fixtures.bytes("flickr-photo.jpg"), covering: nil, limits: DecodeLimits()),
        ]
        for size in Self.sizes {
            for photo in photos {
                let effect = LightEffect.apply(to: CoverCrop.apply(photo, to: size), style: style)
                let preview = try BlurredPreview.make(
                    photo: Fixtures.photo,
                    effect: effect,
                    style: style,
                    legibility: Legibility(sharp: effect, blurred: effect),
                    focus: .centre
                )
                let small = try decodeImage(preview.webp, as: .webp)
                #expect(small.width == preview.size.width && small.height == preview.size.height)
                let db = psnr(BilinearUpscale.apply(small, to: size), effect)
                print("preview \(style) \(size) -> \(preview.size): \(preview.webp.count) bytes, \(String(format: "%.1f", db)) dB")
                #expect(db >= 50, "\(style) at \(size): \(db) dB")
                #expect(preview.webp.count <= 2048, "\(style) at \(size): \(preview.webp.count) bytes")
            }
        }
    }
}

@Suite("Blurred preview in /background.json")
struct PreviewJSONTests {
    @Test(
        "the JSON carries the blurred layer of the image its URLs name",
        arguments: [("light", 320, 568), ("dark", 750, 1334), ("none", 640, 1136)]
    )
    func theJSONCarriesTheBlurredLayer(_ style: String, _ width: Int, _ height: Int) async throws {
        try await TestApp.withApp { client in
            let answer = try await TestApp.get(client, "/background.json?lat=48.85&lon=2.35&width=\(width)&height=\(height)&style=\(style)")
            #expect(answer.status == .ok)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
            let images = try #require(json["images"] as? [String: Any])
            let preview = try #require(images["blurredPreview"] as? [String: Any])
            let uri = try #require(preview["uri"] as? String)
            #expect(uri.hasPrefix("data:image/webp;base64,"))
            let webp = [UInt8](try #require(Data(base64Encoded: String(uri.dropFirst("data:image/webp;base64,".count)))))
            #expect(webp.count <= 2048)
            let small = try decodeImage(webp, as: .webp)
            #expect(preview["width"] as? Int == small.width && preview["height"] as? Int == small.height)

            let blurred = try #require(images["blurred"] as? String)
            let full = try await TestApp.get(client, blurred)
            let layer = try decodeImage(full.body, as: .png)
            #expect(layer.width == width && layer.height == height)
            let db = psnr(BilinearUpscale.apply(small, to: PixelSize(width: width, height: height)), layer)
            #expect(db >= 50, "\(style) \(width)x\(height): \(db) dB")
            #expect(full.photoID == json["photoId"] as? String)
        }
    }
}
