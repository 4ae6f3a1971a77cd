import Foundation
import HummingbirdTesting
import Testing

@testable import Backdrop

/// `dpr` (issue 50): width and height in CSS pixels times 1, 1.5, 2 or 3; lossy quality falls as density rises; cell
/// URLs carry it; the JSON's `imageSet` is a CSS `image-set()` of every density and lossy format.
@Suite("Density")
struct DensityTests {
    static let paris = "lat=48.8566&lon=2.3522"

    @Test(
        "dpr other than 1, 1.5, 2 or 3, or a product past the limits, is a 400 naming dpr",
        arguments: [
            "dpr=2.5", "dpr=0", "dpr=-1", "dpr=4", "dpr=x", "dpr=", "dpr=1.50", "dpr=2&dpr=3", "dpr=2e0", "dpr=1.5x",
            "width=1025&height=100&dpr=2", "width=100&height=683&dpr=3", "width=1200&height=1200&dpr=2", "width=2048&height=1&dpr=1.5",
        ]
    )
    func badDensities(_ query: String) async throws {
        try await TestApp.withApp { client in
            for path in ["/background", "/background.json"] {
                let answer = try await TestApp.get(client, "\(path)?\(Self.paris)&\(query)")
                #expect(answer.status == .badRequest, "\(path)?\(query)")
                #expect(answer.json["parameter"] == "dpr", "\(path)?\(query): \(answer.json)")
            }
        }
    }

    @Test func dprMultipliesTheSizeAndTheEdgesHold() async throws {
        try await TestApp.withApp { client in
            for (query, width, height) in [
                ("width=64&height=48&dpr=1", 64, 48), ("width=64&height=48&dpr=1.5", 96, 72), ("width=64&height=48&dpr=2", 128, 96),
                ("width=64&height=48&dpr=3", 192, 144), ("width=33&height=7&dpr=1.5", 50, 11),
            ] {
                let answer = try await TestApp.get(client, "/background?\(Self.paris)&\(query)&blur=0")
                #expect(answer.status == .ok, "\(query)")
                guard answer.status == .ok else { continue }
                let image = try PNGDecoder.decode(answer.body)
                #expect(image.width == width && image.height == height, "\(query): \(image.width)x\(image.height)")
            }
        }
        // The products at the limits (2048 px a side, 4 MP) are asked for as they are: read as the request's size, not
        // rendered, so that the suite's other renders do not queue behind two 4-MP PNGs.
        let defaults = Settings().render.defaults
        for (query, width, height) in [("width=1024&height=976&dpr=2", 2048, 1952), ("width=682&height=651&dpr=3", 2046, 1953)] {
            let spec = try BackgroundQuery(query: "\(Self.paris)&\(query)", defaults: defaults, precision: 5).spec(in: .png)
            #expect(spec.size == PixelSize(width: width, height: height), "\(query): \(spec.size)")
        }
    }

    @Test func theSharpFloorFallsAsDensityRisesTheBlurredOneStays() {
        let settings = EncoderSettings()
        #expect(settings.at(.x1) == settings)
        #expect([Density.x1_5, .x2, .x3].map { settings.at($0).floor(hundredths: 0) } == [35, 34, 33])
        #expect(
            [Density.x1, .x1_5, .x2, .x3].map { settings.at($0).floor(hundredths: 100) } == [45, 45, 45, 45],
            "smooth gradients band at any density"
        )
        #expect(settings.at(.x2).floor(hundredths: 50) == 34 && settings.at(.x2).floor(hundredths: 75) == 39.5)
    }

    @Test func aDenserRenderIsItsOwnImageNotTheSameSizeAtDensityOne() async throws {
        try await TestApp.withApp { client in
            let dense = try await TestApp.get(client, "/background?\(Self.paris)&width=200&height=300&dpr=2&blur=0&format=jpeg")
            let plain = try await TestApp.get(client, "/background?\(Self.paris)&width=400&height=600&blur=0&format=jpeg")
            #expect(dense.status == .ok && plain.status == .ok)
            let (a, b) = (try JPEGDecoder.decode(dense.body), try JPEGDecoder.decode(plain.body))
            #expect(a.width == 400 && b.width == 400 && a.height == 600)
            #expect(dense.body.count < plain.body.count, "a 34 dB floor at dpr 2, 36 at 1: \(dense.body.count) vs \(plain.body.count)")
        }
    }

    /// `/background.json`'s `images` for `query`, and its sharp `image-set()`'s options as (option, path).
    static func imageSet(_ client: some TestClientProtocol, _ query: String) async throws -> (images: [String: Any], options: [(String, String)]) {
        let answer = try await TestApp.get(client, "/background.json?\(query)")
        #expect(answer.status == .ok)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        let images = try #require(json["images"] as? [String: Any])
        let css = try #require((images["imageSet"] as? [String: String])?["sharp"])
        #expect(css.hasPrefix("image-set(url(\"/background?cell=") && css.hasSuffix(")"))
        let options = css.dropFirst("image-set(".count).dropLast().components(separatedBy: ", ")
        return (images, options.map { ($0, String($0.dropFirst("url(\"".count).prefix { $0 != "\"" })) })
    }

    @Test func cellURLsAndTheImageSetCarryDpr() async throws {
        try await TestApp.withApp { client in
            let (images, options) = try await Self.imageSet(client, "\(Self.paris)&width=390&height=844&dpr=2")
            let sharp = try #require(images["sharp"] as? String)
            #expect(sharp.contains("width=390&height=844&dpr=2&"), "\(sharp)")
            // AVIF, WebP, then JPEG, each at 1x, 1.5x, 2x (3x is 1170x2532: past 2048 px, left out).
            #expect(options.count == 9, "\(options)")
            for (index, (option, path)) in options.enumerated() {
                let format = ["avif", "webp", "jpeg"][index / 3]
                let density = ["1", "1.5", "2"][index % 3]
                #expect(option.hasSuffix(" type(\"image/\(format)\") \(density)x"), "\(option)")
                #expect(path.contains("format=\(format)") && path.contains("blur=0&") && path.contains("width=390&height=844"), "\(path)")
                #expect(path.contains("dpr=") == (density != "1"), "\(path)")
            }
            #expect((images["imageSet"] as? [String: String])?["blurred"]?.contains("blur=1&") == true)
            // Every option of a set answers in its format: a small size's set, to keep the renders light (3x within the
            // limits there).
            let (_, smallOptions) = try await Self.imageSet(client, "\(Self.paris)&width=40&height=60")
            #expect(smallOptions.count == 12, "\(smallOptions)")
            for (_, path) in smallOptions {
                let format = try #require(["avif", "webp", "jpeg"].first { path.contains("format=\($0)") })
                let image = try await TestApp.get(client, path)
                #expect(image.status == .ok && image.headers[.contentType] == "image/\(format)", "\(path)")
            }
        }
    }
}
