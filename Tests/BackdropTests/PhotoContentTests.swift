import Foundation
import Testing

@testable import Backdrop

/// What a photo shows: faces (OpenCV's LBP cascade, compiled in from Debian's opencv-data and checked against OpenCV
/// itself) and skin. A portrait is a photo of people; no stock, fixture or night photo shows a face or is turned
/// down for skin.
@Suite("Photo content")
struct PhotoContentTests {
    @Test func theCompiledCascadeIsReadWhole() {
        let cascade = FaceCascade.frontalFace
        #expect(cascade.width == 24 && cascade.height == 24)
        #expect(cascade.stages.count == 20 && cascade.features.count == 136)
        #expect(cascade.stages.map(\.stumps.count).reduce(0, +) == 139)
        #expect(FaceCascade(numbers: "24 24\nstage 0.5 1\n999 0 0 0 0 0 0 0 0 1 -1\nfeatures 0").stages.isEmpty, "a stump past the features")
    }

    /// scikit-image's `astronaut` (Eileen Collins, NASA, public domain): one face, where OpenCV 4.6's
    /// `detectMultiScale(scaleFactor: 1.1, minNeighbors: 3)` finds it on the same 256-px copy, at (86, 31) 52 x 52.
    @Test func aPortraitShowsPeople() throws {
        let photo = try JPEGDecoder.decode(try Fixtures.bytes("astronaut.jpg"))
        let small = BoxShrink.apply(photo, factor: 2)
        let faces = FaceDetector(cascade: .frontalFace).faces(in: PhotoContent.gray(small), width: small.width, height: small.height)
        #expect(faces.count == 1, "\(faces)")
        if let face = faces.first {
            #expect(abs(face.x - 86) <= 3 && abs(face.y - 31) <= 3 && abs(face.width - 52) <= 4, "\(face)")
        }
        let content = PhotoQuality(photo).content
        #expect(content.faces == 1 && content.showsPeople, "\(content)")
        #expect(content.skin < PhotoContent.skinLimit)
        #expect(PhotoQuality(photo).verdict(for: .init(sky: .day, shown: .day)) == .people)
        #expect(PhotoQuality(photo).verdict(for: .init(sky: .day, shown: .day, people: true)) == .pass, "ranked as people already")
    }

    /// False positives: none on the stock photos as their originals decode, the landscape and night fixtures.
    @Test func photosOfPlacesShowNoFacesAndPassTheSkinGuard() throws {
        let stock = try FileManager.default.contentsOfDirectory(atPath: Fixtures.stockFolder.path).filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(stock.count >= 16)
        var photos = try stock.map { ($0, try JPEGDecoder.decode([UInt8](Data(contentsOf: Fixtures.stockFolder.appendingPathComponent($0))))) }
        for name in ["flickr-photo.jpg", "night-city.jpg", "night-harbour.jpg", "night-stars.jpg", "night-street.jpg"] {
            photos.append((name, try JPEGDecoder.decode(try Fixtures.bytes(name))))
        }
        for (name, photo) in photos {
            let content = PhotoQuality(photo).content
            #expect(content.faces == 0 && !content.showsPeople, "\(name): \(content)")
            #expect(content.skin < 0.4, "\(name): \(content)")
        }
    }

    /// A photo is measured once, at the first size it is prepared at, and judged by those measures at every size:
    /// measures kept for a landscape's id (a portrait's, put there by the test) turn it down at another size.
    @Test func aPhotoIsMeasuredOnceWhateverTheSizes() async throws {
        let pool = Fixtures.pool()
        let gate = RenderGate(maxWait: .seconds(60), maxJobs: 100, workers: 1, pool: pool)
        let renderer = Renderer(encoders: EncoderSettings(), limits: DecodeLimits(), memoryBudget: 64 << 20, gate: gate)
        let landscape = try Fixtures.bytes("flickr-photo.jpg")
        let photo = SourcePhoto(
            id: "commons-7",
            origin: .commons,
            attribution: Fixtures.photo.attribution,
            shown: .day,
            sky: .day
        )
        let load: Renderer.Loader = { _, _ in EncodedImage(bytes: landscape, variant: "fixture") }
        let small = RenderSpec(size: PixelSize(width: 64, height: 64), style: .light, blurHundredths: 0)
        _ = try await renderer.render(photo, load: load, spec: small, for: RequestClient("test"))
        let measured = try #require(await renderer.measures.cached(photo.id), "measured at its first size")
        #expect(measured.content.faces == 0)
        let portrait = PhotoQuality(try JPEGDecoder.decode(try Fixtures.bytes("astronaut.jpg")))
        await renderer.measures.insert(portrait, for: photo.id)
        let large = RenderSpec(size: PixelSize(width: 320, height: 568), style: .light, blurHundredths: 0)
        await #expect(throws: PhotoRejected.self, "judged by the measures kept, not measured again") {
            try await renderer.render(photo, load: load, spec: large, for: RequestClient("test"))
        }
    }

    @Test func aFrameOfSkinIsTurnedDown() {
        var rng = SeededGenerator(seed: 20_261_126)
        // Skin tones in 8-px blocks of varied shade (texture the reduced copy keeps), filling the frame: a close-up.
        let shades = (0..<(100 * 75)).map { _ in Int.random(in: -40...40, using: &rng) }
        let skin = RGBImage(width: 800, height: 600) { out in
            for pixel in 0..<(out.count / 3) {
                let shade = shades[(pixel / 800 / 8) * 100 + (pixel % 800) / 8]
                out[3 * pixel] = UInt8(clamping: 224 + shade)
                out[3 * pixel + 1] = UInt8(clamping: 172 + shade)
                out[3 * pixel + 2] = UInt8(clamping: 150 + shade)
            }
        }
        let quality = PhotoQuality(skin)
        #expect(quality.content.skin > PhotoContent.skinLimit, "\(quality.content)")
        #expect(quality.verdict == .skin)
    }
}
