import BackdropLab
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import Backdrop

@Suite("Output formats")
struct FormatTests {
    @Test(
        "Accept chooses the format",
        arguments: [
            (nil, OutputFormat.png), ("", .png), ("*/*", .png), ("image/*", .png), ("image/*, */*;q=0.8", .png),
            ("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", .avif),  // Chromium's images
            ("image/avif,image/webp,*/*", .avif),  // Firefox's images
            ("image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png;q=0.7,*/*;q=0.5", .avif),  // Safari
            ("image/webp,*/*", .webp), ("image/jpeg", .jpeg), ("image/png", .png), ("IMAGE/AVIF", .avif),
            ("image/png, image/jpeg", .jpeg), ("image/jpeg;q=0.5, image/png", .png), ("image/avif;q=0.9, image/webp", .webp),
            ("image/avif;q=0, image/webp;q=0.1", .webp), ("image/avif;q=0, */*", .png), ("image/png;q=0, image/*", .jpeg),
            ("image/png;q=0, image/jpeg;q=0, image/*", .webp), ("image/*;q=0, image/avif", .avif),
            ("text/html", nil), ("application/json", nil), ("image/png;q=0", nil), ("image/gif", nil), ("*/*;q=0", nil),
            ("image/*;q=0, */*", nil),
            ("garbage", .png), ("image/avif;q=2", .png), ("image/avif;q=abc", .png), ("/", .png), ("image/avif;q", .png),
            ("*/avif", .png), ("image/avif, ,image/webp", .avif), ("image/avif;level=1;q=1.000", .avif), ("image/avif;q=0.0001", .png),
        ] as [(String?, OutputFormat?)]
    )
    func negotiation(_ accept: String?, _ expected: OutputFormat?) {
        #expect(FormatNegotiation.choose(accept: accept) == expected, "Accept: \(accept ?? "(none)")")
    }

    /// The stock photos with the most detail (mountains, the sharpest first) and the smoothest (a dusk sky), whose
    /// fixed quality 80 gave 35.4 dB in JPEG at blur 0.
    @Test("every format meets its floor against the PNG of the same render", arguments: [14, 12, 15, 13, 9, 1])
    func floorsAreMet(_ stock: Int) throws {
        let sharp = try Fixtures.stockPhoto(stock)
        let prepared = PreparedImages(sharp: sharp, style: .light)
        let settings = EncoderSettings()
        for (hundredths, floor) in [(100, 45.0), (75, 40.5), (50, 36.0), (0, 36.0)] {
            #expect(settings.floor(hundredths: hundredths) == floor)
            let lossless = prepared.picture(hundredths: hundredths)
            let png = Array(buffer: try prepared.encoded(hundredths: hundredths, format: .png, settings: settings))
            #expect(try decodeImage(png, as: .png) == lossless)
            for format in [OutputFormat.jpeg, .webp, .avif] {
                let bytes = Array(buffer: try prepared.encoded(hundredths: hundredths, format: format, settings: settings))
                #expect(hasSignature(bytes, of: format), "\(format)")
                let decoded = try decodeImage(bytes, as: format)
                #expect(decoded.width == 640 && decoded.height == 1136)
                let db = psnr(decoded, lossless)
                #expect(db >= floor, "stock \(stock), \(format) at blur \(hundredths)%: \(db) dB")
                #expect(bytes.count * 6 < png.count, "\(format) at blur \(hundredths)%: \(bytes.count) bytes vs PNG \(png.count)")
            }
        }
    }

    @Test func qualityFollowsDetailAtOneFloor() throws {
        let settings = EncoderSettings()
        let detailed = PreparedImages(sharp: try Fixtures.stockPhoto(14), style: .light).picture(hundredths: 0)
        let smooth = PreparedImages(sharp: try Fixtures.stockPhoto(14), style: .light).picture(hundredths: 100)
        #expect(ImageDetail.measure(detailed).luma > 4 * ImageDetail.measure(smooth).luma)
        for format in [OutputFormat.jpeg, .webp, .avif] {
            let high = try FittedQuality.encode(detailed, blend: 0, format: format, floor: 40, settings: settings)
            let low = try FittedQuality.encode(smooth, blend: 1, format: format, floor: 40, settings: settings)
            #expect(high.quality > low.quality + 10, "\(format): \(high.quality) vs \(low.quality)")
            for (fitted, picture) in [(high, detailed), (low, smooth)] {
                #expect(psnr(try decodeImage(Array(buffer: fitted.bytes), as: format), picture) >= 40, "\(format)")
            }
        }
    }

    @Test func aPredictionThatFallsShortGetsOneMoreEncodeNeverTwo() throws {
        let picture = PreparedImages(sharp: try Fixtures.stockPhoto(12), style: .light).picture(hundredths: 0)
        let settings = EncoderSettings()
        for format in [OutputFormat.jpeg, .webp, .avif] {
            let model = QualityModel.of(format)
            // The fitted lines with 3 dB more than the picture gets (past the worst the fit saw): the first encode
            // falls short, and the second, predicted with that error taken off, meets the floor.
            let tooHigh = QualityModel(
                lines: model.lines.map { QualityModel.Line($0.quality, $0.intercept + 3, $0.luma, $0.chroma, $0.busy, $0.blend, $0.blendSquared) },
                margin: model.margin,
                retryMargin: model.retryMargin,
                worst: model.worst
            )
            let fitted = try FittedQuality.encode(picture, blend: 0, format: format, floor: 36, settings: settings, model: tooHigh)
            #expect(fitted.encodes == 2, "\(format)")
            let db = try #require(fitted.decibels)
            #expect(db >= 36, "\(format): q\(fitted.quality), \(db) dB")
            let once = try FittedQuality.encode(picture, blend: 0, format: format, floor: 36, settings: settings)
            #expect(try #require(once.decibels) >= 36)
            #expect(abs(fitted.quality - once.quality) <= 6, "\(format): q\(fitted.quality) vs q\(once.quality)")
        }
    }

    @Test func detailOnEveryFourthRowIsDetailOnEveryRow() throws {
        for stock in [14, 9, 1] {
            let picture = try Fixtures.stockPhoto(stock)
            let (sampled, whole) = (ImageDetail.measure(picture), ImageDetail.measure(picture, stride: 1))
            #expect(whole.luma > 0.5 && abs(sampled.luma - whole.luma) < 0.05 * whole.luma, "stock \(stock): \(sampled) vs \(whole)")
            #expect(whole.chroma > 0.1 && abs(sampled.chroma - whole.chroma) < 0.05 * whole.chroma, "stock \(stock): \(sampled) vs \(whole)")
            #expect(abs(sampled.busy - whole.busy) < 0.03, "stock \(stock): \(sampled) vs \(whole)")
        }
        #expect(
            ImageDetail.measure(RGBImage(width: 8, height: 8, pixels: [UInt8](repeating: 90, count: 192))) == ImageDetail(luma: 0, chroma: 0, busy: 0)
        )
    }

    /// Grey noise has luma detail and no chroma detail, and every block busy; colour that keeps its luma has chroma
    /// detail only; noise over half a picture makes half its blocks busy.
    @Test func detailTellsLumaColourAndWhereItIs() throws {
        var random = SeededGenerator(seed: 61)
        let (width, height) = (64, 64)
        var grey = [UInt8]()
        var colour = [UInt8]()
        var half = [UInt8]()
        for y in 0..<height {
            for x in 0..<width {
                let value = UInt8.random(in: 0...255, using: &random)
                grey += [value, value, value]
                // R + 2G + B is 400 everywhere; R - G and B - G alternate.
                colour += (x + y) % 2 == 0 ? [200, 100, 0] : [0, 100, 200]
                half += y < height / 2 ? [value, value, value] : [90, 90, 90]
            }
        }
        let noise = ImageDetail.measure(RGBImage(width: width, height: height, pixels: grey), stride: 1)
        #expect(noise.luma > 50 && noise.chroma == 0 && noise.busy == 1)
        let hue = ImageDetail.measure(RGBImage(width: width, height: height, pixels: colour), stride: 1)
        #expect(hue.luma == 0 && hue.chroma == 200 && hue.busy == 0)
        let halfNoise = ImageDetail.measure(RGBImage(width: width, height: height, pixels: half), stride: 1)
        #expect(halfNoise.busy == 0.5 && halfNoise.luma > 20 && halfNoise.luma < noise.luma)
    }

    /// The detail is its definition, written here one pixel at a time, at every width the eight-pixel steps meet (none,
    /// one and a tail; a block left to the tail) and every stride: on seeded noise, and on the largest differences and
    /// lumas (a black and white checkerboard, white blocks beside black), which a 16-bit lane could overflow on.
    @Test(arguments: [(2, 2), (9, 9), (11, 8), (12, 17), (19, 16), (27, 33), (640, 40), (643, 41)])
    func detailIsItsDefinitionAtEveryWidth(_ width: Int, _ height: Int) throws {
        var random = SeededGenerator(seed: UInt64(width * 131 + height))
        let noise = (0..<width * height * 3).map { _ in UInt8.random(in: 0...255, using: &random) }
        func grey(_ white: (Int, Int) -> Bool) -> [UInt8] {
            (0..<width * height).flatMap { i -> [UInt8] in
                let value: UInt8 = white(i % width, i / width) ? 255 : 0
                return [value, value, value]
            }
        }
        let checkers = grey { x, y in (x + y) % 2 == 0 }
        let blocks = grey { x, _ in x / 8 % 2 == 0 }
        for pixels in [noise, checkers, blocks] {
            let picture = RGBImage(width: width, height: height, pixels: pixels)
            for stride in [1, 4] {
                #expect(
                    ImageDetail.measure(picture, stride: stride) == Self.detailByDefinition(picture, stride: stride),
                    "\(width)x\(height) / \(stride)"
                )
            }
        }
    }

    private static func detailByDefinition(_ picture: RGBImage, stride: Int) -> ImageDetail {
        let (width, p) = (picture.width, picture.pixels.map(Int.init))
        func at(_ x: Int, _ y: Int) -> (luma: Int, red: Int, blue: Int) {
            let i = (y * width + x) * 3
            return (p[i] + 2 * p[i + 1] + p[i + 2], p[i] - p[i + 1], p[i + 2] - p[i + 1])
        }
        var (luma, chroma, differences, busy, blocks) = (0, 0, 0, 0, 0)
        for y in Swift.stride(from: 0, to: picture.height - 1, by: stride) {
            for x in 0..<width - 1 {
                let (here, right, below) = (at(x, y), at(x + 1, y), at(x, y + 1))
                luma += abs(right.luma - here.luma) + abs(below.luma - here.luma)
                chroma += abs(right.red - here.red) + abs(right.blue - here.blue) + abs(below.red - here.red) + abs(below.blue - here.blue)
            }
            differences += (width - 1) * 2
        }
        for top in Swift.stride(from: 0, through: picture.height - 8, by: 8 * stride) {
            for left in Swift.stride(from: 0, through: width - 8, by: 8) {
                let values = (top..<top + 8).flatMap { y in (left..<left + 8).map { x in at(x, y).luma } }
                let (sum, squares) = (values.reduce(0, +), values.reduce(0) { $0 + $1 * $1 })
                busy += 64 * squares - sum * sum > 1600 * 64 * 64 ? 1 : 0
                blocks += 1
            }
        }
        return ImageDetail(
            luma: Double(luma) / Double(differences) / 4,
            chroma: Double(chroma) / Double(differences) / 2,
            busy: blocks == 0 ? 0 : Double(busy) / Double(blocks)
        )
    }

    /// The check's PSNR sums every byte's squared error: odd lengths (the 16-byte steps' tail), many 64 kB blocks, and
    /// the largest error everywhere (what a 32-bit lane could overflow on).
    @Test(arguments: [(1, 1), (5, 3), (7, 13), (640, 1136), (1001, 999)])
    func psnrCountsEveryByte(_ width: Int, _ height: Int) throws {
        var random = SeededGenerator(seed: UInt64(width * 7919 + height))
        let count = width * height * 3
        let a = RGBImage(width: width, height: height, pixels: (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) })
        let b = RGBImage(width: width, height: height, pixels: (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) })
        let sum = zip(a.pixels, b.pixels).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) }
        let expected = 10 * log10(255 * 255 * Double(count) / sum)
        #expect(abs(a.psnr(against: b) - expected) < 1e-9, "\(width)x\(height)")
        let black = RGBImage(width: width, height: height, pixels: [UInt8](repeating: 0, count: count))
        let white = RGBImage(width: width, height: height, pixels: [UInt8](repeating: 255, count: count))
        #expect(black.psnr(against: white) == 0, "\(width)x\(height)")
        #expect(a.psnr(against: a) == .infinity)
    }

    @Test func aQualityWellAboveTheFloorIsNotCheckedAgain() throws {
        // AVIF past blur 0.5 keeps quality 80 for the eye (smooth gradients), well above what 45 dB needs.
        let picture = PreparedImages(sharp: try Fixtures.stockPhoto(14), style: .light).picture(hundredths: 100)
        let settings = EncoderSettings()
        let fitted = try FittedQuality.encode(
            picture,
            blend: 1,
            format: .avif,
            floor: settings.floor(hundredths: 100),
            minimum: settings.minimumQuality(.avif, hundredths: 100),
            settings: settings
        )
        #expect(fitted.quality == 80 && fitted.encodes == 1 && fitted.decibels == nil)
        #expect(psnr(try decodeImage(Array(buffer: fitted.bytes), as: .avif), picture) >= 46)
    }

    @Test func encodersReportErrorsAsSwiftErrors() throws {
        let huge = RGBImage(width: 16_400, height: 1, pixels: [UInt8](repeating: 128, count: 16_400 * 3))
        #expect(throws: ImagingError.self) { try WebPEncoder.encode(huge, quality: 75, method: 0) }
        let tiny = RGBImage(width: 1, height: 1, pixels: [1, 2, 3])
        for format in OutputFormat.allCases {
            let prepared = PreparedImages(sharp: tiny, style: .none)
            let bytes = Array(buffer: try prepared.encoded(hundredths: 0, format: format, settings: EncoderSettings()))
            #expect(try decodeImage(bytes, as: format).width == 1)
        }
    }

    @Test func eachFormatThroughTheAPI() async throws {
        try await TestApp.withApp { client in
            var etags = Set<String>()
            let png = try await TestApp.get(client, "/background?lat=48.85&lon=2.35&blur=0.5&format=png")
            let reference = try decodeImage(png.body, as: .png)
            for format in OutputFormat.allCases {
                let uri = "/background?lat=48.85&lon=2.35&blur=0.5&format=\(format.rawValue)"
                let answer = try await TestApp.get(client, uri)
                #expect(answer.status == .ok)
                #expect(answer.headers[.contentType] == format.mediaType)
                #expect(answer.headers[.vary] == nil, "an explicit format does not vary by Accept")
                #expect(answer.headers[BackdropHeaders.link] == "</background?cell=u09tv&blur=0.5&format=\(format.rawValue)>; rel=\"canonical\"")
                #expect(hasSignature(answer.body, of: format))
                let image = try decodeImage(answer.body, as: format)
                #expect(image.width == 640 && image.height == 1136)
                #expect(psnr(image, reference) >= 36, "\(format)")
                let etag = try #require(answer.headers[.eTag])
                etags.insert(etag)

                let head = try await TestApp.get(client, uri, method: .head)
                #expect(head.status == .ok && head.body.isEmpty)
                #expect(head.headers[.contentLength] == String(answer.body.count) && head.headers[.contentType] == format.mediaType)

                let revalidated = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: etag]) { $0 }
                #expect(revalidated.status == .notModified, "\(format)")
                #expect(revalidated.headers[.eTag] == etag)
            }
            #expect(etags.count == OutputFormat.allCases.count, "one ETag per format")
            let metrics = String(decoding: try await TestApp.get(client, "/metrics").body, as: UTF8.self)
            #expect(metrics.contains(#"backdrop_images_total{format="avif",status="200"} 2"#), "GET and HEAD")
            #expect(metrics.contains(#"backdrop_images_total{format="webp",status="304"} 1"#))
            // Each lossy render's check is counted by how it met its floor; nothing went out under it.
            for format in ["jpeg", "webp", "avif"] {
                let counted = ["first", "second", "clear"].map {
                    MetricsText.value(metrics, #"backdrop_render_fidelity_total{format="\#(format)",outcome="\#($0)"}"#) ?? 0
                }
                #expect(counted.reduce(0, +) == 1, "\(format): \(counted)")
            }
            #expect(!metrics.contains(#"outcome="short""#) && !metrics.contains(#"outcome="unread""#))
        }
    }

    @Test func negotiatedAnswersVaryByAccept() async throws {
        try await TestApp.withApp { client in
            let uri = "/background?lat=48.85&lon=2.35&blur=1"
            let chromium = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
            for (accept, format) in [
                (nil, OutputFormat.png), ("*/*", .png), (chromium, .avif), ("image/webp", .webp),
                ("image/jpeg, image/png;q=0.5", .jpeg), ("nonsense;;", .png),
            ] as [(String?, OutputFormat)] {
                let headers: HTTPFields = accept.map { [.accept: $0] } ?? [:]
                let answer = try await client.execute(uri: uri, method: .get, headers: headers) { $0 }
                #expect(answer.status == .ok)
                #expect(answer.headers[.contentType] == format.mediaType, "\(accept ?? "(none)")")
                #expect(answer.headers[.vary] == "Accept")
                #expect(answer.headers[BackdropHeaders.link] == "</background?cell=u09tv&blur=1&format=\(format.rawValue)>; rel=\"canonical\"")
                var conditional = headers
                conditional[.ifNoneMatch] = try #require(answer.headers[.eTag])
                let revalidated = try await client.execute(uri: uri, method: .get, headers: conditional) { $0 }
                #expect(revalidated.status == .notModified)
                #expect(revalidated.headers[.vary] == "Accept", "304s vary too")
            }
            let refused = try await client.execute(uri: uri, method: .get, headers: [.accept: "text/html"]) { $0 }
            #expect(refused.status == .notAcceptable)
            #expect(refused.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(refused.headers[.vary] == "Accept")
            #expect(String(buffer: refused.body).contains("image/avif"))
            let overridden = try await client.execute(uri: uri + "&format=jpeg", method: .get, headers: [.accept: "text/html"]) { $0 }
            #expect(overridden.status == .ok && overridden.headers[.contentType] == "image/jpeg")
        }
    }

    @Test func aCellURLGivesWhatItsCoordinatesGive() async throws {
        try await TestApp.withApp { client in
            let byCoordinates = try await TestApp.get(client, "/background?lat=48.85&lon=2.35&blur=0.3&width=320&height=568&format=webp")
            let byCell = try await TestApp.get(client, "/background?cell=u09tv&blur=0.3&width=320&height=568&format=webp")
            #expect(byCell.status == .ok)
            #expect(byCell.body == byCoordinates.body)
            #expect(byCell.photoID == byCoordinates.photoID)
            #expect(byCell.headers[BackdropHeaders.link] == "</background?cell=u09tv&blur=0.3&width=320&height=568&format=webp>; rel=\"canonical\"")
            let infoByCoordinates = try await TestApp.get(client, "/background.json?lat=48.85&lon=2.35&width=320&height=568")
            let infoByCell = try await TestApp.get(client, "/background.json?cell=u09tv&width=320&height=568")
            #expect(infoByCell.status == .ok && infoByCell.body == infoByCoordinates.body, "/background.json takes a cell too")
            let both = try await TestApp.get(client, "/background.json?cell=u09tv&lat=48.85&lon=2.35")
            #expect(both.status == .badRequest && both.json["parameter"] == "cell")
            let stock = try await TestApp.get(client, "/background?style=dark&format=png")
            #expect(stock.headers[BackdropHeaders.link] == "</background?blur=1&style=dark&format=png>; rel=\"canonical\"")
        }
    }

    @Test(
        "bad cells and formats are 400s naming the parameter",
        arguments: [
            ("cell=u09t", "cell"), ("cell=u09tvv", "cell"), ("cell=U09TV", "cell"), ("cell=u09ta", "cell"), ("cell=u09ti", "cell"),
            ("cell=", "cell"), ("cell=u09tv&lat=1&lon=2", "cell"), ("cell=u09tv&cell=u09tv", "cell"), ("cell=%00%00%00%00%00", "cell"),
            ("format=gif", "format"), ("format=PNG", "format"), ("format=", "format"), ("format=avif&format=png", "format"),
        ]
    )
    func invalidCellsAndFormats(_ query: String, _ parameter: String) async throws {
        try await TestApp.withApp { client in
            let answer = try await TestApp.get(client, "/background?\(query)")
            #expect(answer.status == .badRequest, "\(query)")
            #expect(answer.json["parameter"] == parameter, "\(query)")
        }
    }

    @Test func theJSONGivesCellURLsInTheFormatItsAcceptPrefers() async throws {
        try await TestApp.withApp { client in
            let uri = "/background.json?lat=48.85&lon=2.35&width=320&height=568"
            let answer = try await client.execute(uri: uri, method: .get, headers: [.accept: "application/json, image/avif, image/webp"]) { $0 }
            #expect(answer.status == .ok)
            #expect(answer.headers[.vary] == "Accept")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: answer.body)) as? [String: Any])
            let images = try #require(json["images"] as? [String: Any])
            #expect(images["format"] as? String == "avif")
            #expect(images["sharp"] as? String == "/background?cell=u09tv&blur=0&width=320&height=568&format=avif")
            #expect(images["blurred"] as? String == "/background?cell=u09tv&blur=1&width=320&height=568&format=avif")
            let formats = try #require(images["formats"] as? [String: [String: String]])
            #expect(Set(formats.keys) == Set(OutputFormat.allCases.map(\.rawValue)))
            #expect(formats["jpeg"]?["blurred"] == "/background?cell=u09tv&blur=1&width=320&height=568&format=jpeg")
            for format in OutputFormat.allCases {
                let url = try #require(formats[format.rawValue]?["sharp"])
                let image = try await TestApp.get(client, url)
                #expect(image.status == .ok && image.headers[.contentType] == format.mediaType)
                #expect(try decodeImage(image.body, as: format).width == 320)
            }

            let plain = try await TestApp.get(client, "/background.json?lat=48.85&lon=2.35")
            let plainJSON = try #require(try JSONSerialization.jsonObject(with: Data(plain.body)) as? [String: Any])
            let plainImages = try #require(plainJSON["images"] as? [String: Any])
            #expect(plainImages["sharp"] as? String == "/background?cell=u09tv&blur=0&format=png", "no Accept: PNG, default size")
            let wrong = try await TestApp.get(client, "/background.json?lat=48.85&lon=2.35&width=0")
            #expect(wrong.status == .badRequest && wrong.json["parameter"] == "width")
        }
    }
}
