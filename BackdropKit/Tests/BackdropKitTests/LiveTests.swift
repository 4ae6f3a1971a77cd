import Foundation
import Testing

@testable import BackdropKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client against a live Backdrop on loopback (pointed at the stand-in Flickr), as an app uses it.
@Suite(.serialized, .enabled(if: Environment.backdrop != nil, "needs BACKDROPKIT_SERVER (make test-backdropkit)"))
struct LiveTests {
    let client: BackdropClient
    let paris = Place.coordinate(latitude: 48.8566, longitude: 2.3522)

    init() throws {
        self.client = BackdropClient(baseURL: try #require(Environment.backdrop), timeout: 30)
    }

    @Test func byCoordinateAndByCellTheSameBackground() async throws {
        let byCoordinate = try await self.client.background(at: self.paris, size: CGSize(width: 390, height: 844), scale: 1)
        #expect(byCoordinate.source == .flickr && byCoordinate.notice != nil)
        #expect(byCoordinate.cell == "u09tv")
        #expect(byCoordinate.images.format == .avif, "the best format of the four the client takes")
        #expect(byCoordinate.window.secondsLeft > 0 && byCoordinate.window.secondsLeft <= 900)
        #expect(abs(byCoordinate.expiry.timeIntervalSince(byCoordinate.receivedAt) - Double(byCoordinate.window.secondsLeft)) < 1e-6)
        let byCell = try await self.client.background(at: .cell(byCoordinate.cell), size: CGSize(width: 390, height: 844))
        #expect(byCell.photoId == byCoordinate.photoId && byCell.images == byCoordinate.images)
        let sharp = byCell.images.url(.sharp).absoluteString
        #expect(sharp.hasPrefix(Environment.backdrop?.absoluteString.trimmingCharacters(in: ["/"]) ?? "-"))
        #expect(sharp.contains("cell=u09tv&") && !sharp.contains("lat=") && sharp.contains("width=390&height=844"))
        let nowhere = try await self.client.background(at: .nowhere, size: CGSize(width: 100, height: 100))
        #expect(nowhere.source == .stock && nowhere.cell == "none")
    }

    @Test func theScaleMultipliesTheSizeWithinTheLimits() async throws {
        let background = try await self.client.background(at: self.paris, size: CGSize(width: 430, height: 932), scale: 3)
        let url = background.images.url(.blurred, format: .png)
        #expect(url.query?.contains("width=945&height=2048") == true, "1290x2796 brought to 2048 high: \(url)")
        let image = try await self.client.image(at: url)
        let size = try #require(ImageHeader.size(image.data))
        #expect(size.width == 945 && size.height == 2048)
    }

    /// Issue 50: a scale Backdrop takes (1.5, 2, 3) is asked as points and `dpr`, and the images are that many
    /// pixels; the CSS image-set() comes with absolute URLs for a web view.
    @Test func aScaleOfTwoIsAskedAsDprAndTheImageSetIsAbsolute() async throws {
        let background = try await self.client.background(at: self.paris, size: CGSize(width: 390, height: 844), scale: 2)
        let url = background.images.url(.sharp, format: .png)
        #expect(url.query?.contains("width=390&height=844&dpr=2&") == true, "\(url)")
        let image = try await self.client.image(at: url)
        let size = try #require(ImageHeader.size(image.data))
        #expect(size.width == 780 && size.height == 1688)
        let set = background.images.imageSet(.sharp)
        let origin = Environment.backdrop?.absoluteString.trimmingCharacters(in: ["/"]) ?? "-"
        #expect(
            set.hasPrefix("image-set(url(\"\(origin)/background?cell=u09tv&blur=0&width=390&height=844&format=avif\") type(\"image/avif\") 1x"),
            "\(set)"
        )
        #expect(set.contains("dpr=2&format=jpeg\") type(\"image/jpeg\") 2x"), "\(set)")
    }

    @Test func eachFormatsURLAnswersThatFormat() async throws {
        let background = try await self.client.background(at: self.paris, pixels: PixelSize(width: 320, height: 568), style: .dark)
        for format in ImageFormat.allCases {
            for layer in Background.Layer.allCases {
                let url = background.images.url(layer, format: format)
                let image = try await self.client.image(at: url)
                #expect(image.format == format, "\(url)")
                #expect(ImageHeader.format(image.data) == format, "\(url): the bytes are \(format.rawValue)")
                #expect(image.credit == background.credit.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) || image.credit != nil)
                if format == .png || format == .webp {
                    let size = try #require(ImageHeader.size(image.data), "\(url)")
                    #expect(size.width == 320 && size.height == 568, "\(url)")
                }
            }
        }
        let onlyOld = BackdropClient(baseURL: self.client.baseURL, formats: [.jpeg, .png])
        let old = try await onlyOld.background(at: self.paris, pixels: PixelSize(width: 320, height: 568))
        #expect(old.images.format == .jpeg && old.images.url(.sharp, decoding: [.png]).query?.hasSuffix("format=png") == true)
    }

    @Test func thePreviewDecodesToItsStatedSize() async throws {
        for (width, height) in [(390.0, 844.0), (1024, 768), (2048, 1536)] {
            let background = try await self.client.background(at: self.paris, size: CGSize(width: width, height: height))
            let preview = background.images.blurredPreview
            let size = try #require(ImageHeader.size(preview.data), "a WebP")
            #expect(size.width == preview.width && size.height == preview.height, "\(width)x\(height)")
            #expect(preview.data.count <= 2048 && preview.width < 100 && preview.height < 100)
            // For run.py to decode with an independent decoder (Pillow's libwebp): the file, named by the asked width
            // and the preview's stated size.
            if let folder = Environment.output {
                try preview.data.write(to: folder.appendingPathComponent("preview-\(Int(width))-\(preview.width)x\(preview.height).webp"))
            }
            #expect(background.images.color.description.count == 7 && !background.images.thumbHash.isEmpty)
        }
    }

    @Test func theLiveJSONHasNoFieldTheModelsDoNotKnow() async throws {
        let url = try self.client.url("/background.json", query: self.paris.queryItems)
        let (data, _) = try await URLSession.shared.data(from: url)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(json.keys).isSubset(of: Background.CodingKeys.allCases.map(\.rawValue)))
        #expect((json["phase"] as? String).flatMap(Background.Phase.init(rawValue:)) != nil, "a place has a phase the client knows")
        #expect((json["photoPhase"] as? String).map { $0 == "unknown" || Background.Phase(rawValue: $0) != nil } == true)
        let images = try #require(json["images"] as? [String: Any])
        #expect(Set(images.keys) == Set(Background.Images.CodingKeys.allCases.map(\.rawValue)))
    }

    @Test func theLegibilityAndTheFocusArriveAndACentreCropIsAskedFor() async throws {
        let size = CGSize(width: 64, height: 96)
        let background = try await self.client.background(at: self.paris, size: size)
        let legibility = try #require(background.legibility)
        #expect(background.crop == "attention" && !background.images.url(.sharp).absoluteString.contains("crop="))
        let focus = try #require(background.focus)
        #expect((0...1).contains(focus.x) && (0...1).contains(focus.y))
        for region in Legibility.Region.allCases {
            let band = legibility.sharp[region]
            #expect(band[band.text].scrim <= band[band.text == .light ? .dark : .light].scrim, "\(region): the lighter scrim's colour")
        }
        let centre = try await self.client.background(at: self.paris, size: size, crop: .centre)
        #expect(centre.crop == "centre" && centre.images.url(.sharp).absoluteString.contains("crop=centre"))
    }

    @Test func anotherVariantIsAnotherPhotoItsURLsSayingSo() async throws {
        let size = CGSize(width: 64, height: 64)
        let chosen = try await self.client.background(at: self.paris, size: size)
        let other = try await self.client.background(at: self.paris, size: size, variant: 1)
        #expect(chosen.variant == 0 && other.variant == 1 && chosen.variants >= 2 && other.variants == chosen.variants)
        #expect(other.photoId != chosen.photoId)
        #expect(other.images.url(.sharp).absoluteString.contains("variant=1") && !chosen.images.url(.sharp).absoluteString.contains("variant="))
    }

    @Test func badParametersAreTypedErrorsNamingTheParameter() async throws {
        await #expect(throws: BackdropError.badRequest(parameter: "lat", message: "must be between -90 and 90, got 91")) {
            try await self.client.background(at: .coordinate(latitude: 91, longitude: 0), size: CGSize(width: 390, height: 844))
        }
        do {
            _ = try await self.client.background(at: .cell("u09t"), size: CGSize(width: 390, height: 844))
            Issue.record("a four-character cell was accepted")
        } catch {
            guard case .badRequest("cell", let message) = error else { throw error }
            #expect(message.contains("geohash of 5 characters"))
        }
    }

    @Test func aNotAcceptableAnswerIsTypedToo() async throws {
        // The client always names its formats; a proxy that rewrote Accept would cause this.
        var request = URLRequest(url: try self.client.url("/background", query: self.paris.queryItems))
        request.setValue("text/html", forHTTPHeaderField: "Accept")
        do {
            _ = try await self.client.send(request)
            Issue.record("text/html was answered")
        } catch {
            guard case .notAcceptable(let message) = error else { throw error }
            #expect(message.contains("no acceptable image type"))
        }
    }

    @Test(.enabled(if: Environment.busyBackdrop != nil))
    func anOverloadedServiceIsBusyWithItsRetryAfter() async throws {
        let service = try #require(Environment.busyBackdrop)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 24
        let client = BackdropClient(baseURL: service, session: URLSession(configuration: configuration), timeout: 30)
        // Distinct sizes, and not those of an earlier run against the same service (its previews are cached for the
        // window): no two share a render. The seed changes from run to run, and every failure names it
        // (BACKDROPKIT_SEED replays it).
        let seed = ProcessInfo.processInfo.environment["BACKDROPKIT_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970 * 1000)
        var generator = SeededGenerator(seed: seed)
        let first = 600 + Int.random(in: 0..<40, using: &generator) * 24
        // The service's queue holds one job. One encode holds it for most of a second (an AVIF at libaom's slowest
        // speed, the busy service's avifSpeed 0), and the others are asked only once it runs: they overlap it, whatever
        // the speed. Its photo is prepared first (a PNG of the same size), so that the AVIF's only job is its encode:
        // between a render's two jobs the queue is empty for a moment, and another client's job may take it.
        let slow = try client.url(
            "/background",
            query: [
                URLQueryItem(name: "lat", value: "48.8566"), URLQueryItem(name: "lon", value: "2.3522"), URLQueryItem(name: "blur", value: "0.5"),
                URLQueryItem(name: "width", value: "\(256 + first % 64)"), URLQueryItem(name: "height", value: "256"),
                URLQueryItem(name: "format", value: "avif"),
            ]
        )
        let prepared = try #require(URL(string: slow.absoluteString.replacingOccurrences(of: "format=avif", with: "format=png")))
        #expect(try await client.send(URLRequest(url: prepared)).1.statusCode == 200, "the photo prepared (seed \(seed))")
        async let held = Result { try await client.send(URLRequest(url: slow)).1.statusCode }
        try await waitUntilRendering(service)
        let results = await withTaskGroup(of: Result<Background, BackdropError>.self) { group in
            for index in 0..<24 {
                group.addTask {
                    await Result { try await client.background(at: self.paris, pixels: PixelSize(width: first + index, height: 1000)) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        var busy = [Int]()
        var other = [BackdropError]()
        for case .failure(let error) in results {
            if case .busy(let retryAfter, _) = error { busy.append(retryAfter) } else { other.append(error) }
        }
        #expect(
            busy.count == results.count && busy.allSatisfy { $0 >= 1 },
            "every one asked while the queue was full is refused with Retry-After: \(busy) (seed \(seed))"
        )
        #expect(other.isEmpty, "\(other) (seed \(seed))")
        let holder = await held
        #expect((try? holder.get()) == 200, "and the render that held the queue is answered: \(holder) (seed \(seed))")
    }

    /// Waits (30 s at most, asking every 50 ms) until `service`'s /metrics shows a render running.
    func waitUntilRendering(_ service: URL) async throws {
        let metrics = service.appendingPathComponent("metrics")
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let text = (try? await URLSession.shared.data(from: metrics)).map { String(decoding: $0.0, as: UTF8.self) } ?? ""
            if text.contains("backdrop_render_jobs{state=\"running\"} 1.0") { return }
            try await Task.sleep(for: .milliseconds(50))  // the poll's pace
        }
        Issue.record("no render ran within 30 s")
    }

    @Test func aServerThatNeverAnswersIsBoundedByTheTimeout() async throws {
        let silent = try SilentServer()
        let client = BackdropClient(baseURL: try #require(URL(string: "http://127.0.0.1:\(silent.port)")), timeout: 1)
        let started = ContinuousClock.now
        await #expect(throws: BackdropError.timedOut(seconds: 1)) {
            try await client.background(at: self.paris, size: CGSize(width: 390, height: 844))
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(900) && waited < .seconds(5), "\(waited)")
    }

    @Test func aServerThatTricklesIsBoundedByTheTimeoutToo() async throws {
        let trickling = try TricklingServer()
        let client = BackdropClient(baseURL: try #require(URL(string: "http://127.0.0.1:\(trickling.port)")), timeout: 1)
        let started = ContinuousClock.now
        await #expect(throws: BackdropError.timedOut(seconds: 1)) {
            _ = try await client.image(at: try #require(URL(string: "http://127.0.0.1:\(trickling.port)/background?cell=u09tv")))
        }
        // Never before the timeout; the upper bound is generous, a hang's mark (the trickle would last 100 s).
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(900) && waited < .seconds(10), "\(waited)")
    }

    @Test func noServiceIsUnreachable() async throws {
        let port = try SilentServer().port  // closed again at once: nothing listens there
        let client = BackdropClient(baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")), timeout: 5)
        do {
            _ = try await client.background(at: self.paris, size: CGSize(width: 390, height: 844))
            Issue.record("a closed port answered")
        } catch {
            guard case .unreachable = error else { throw error }
        }
    }
}
