/// Whether a decoded photo is worth showing, judged on a copy reduced to at most 256 px on its long side (about a
/// millisecond): not nearly black or white, not clipped, not blurred (the variance of the Laplacian of its luminance),
/// not flat (documents, screenshots, a lens cap). The limits follow the sky the photo is for (``Limits``): a night
/// photograph is black sky over half the frame with a few lights, and softer than a day one.
///
/// A photo that nothing dates (no exact time taken, no telling tag) is judged by its light too: by day one darker
/// than ``darkestDay`` on average is no day photo; at night only one whose light says night is shown (``nightLight``),
/// and a night stock photo stands in for the others.
package struct PhotoQuality: Sendable, Equatable {
    package enum Verdict: String, Sendable, CaseIterable {
        case pass, dark, bright, clipped, blurred, flat
        case darkForDay = "dark_for_day"
        case brightForNight = "bright_for_night"
        /// More than ``PhotoContent/skinLimit`` of the frame is skin-like: never served (a stock photo always ends the line).
        case skin
        /// Faces fill it (``PhotoContent/showsPeople``) and it was ranked as free of people: it is ranked again, below the photos
        /// of the same sky without people.
        case people
    }

    /// What the gate knows of a photo besides its pixels: the sky at the place it is for, the sky it shows when
    /// something says (then its light is not judged), whether its tags or categories say mist or fog, and whether it
    /// was ranked as showing people (then faces in it are no news).
    struct Expectation: Sendable, Equatable {
        package let sky: SunPhase?
        package let shown: SunPhase?
        package let misty: Bool
        package let people: Bool

        package init(sky: SunPhase?, shown: SunPhase?, misty: Bool = false, people: Bool = false) {
            self.sky = sky
            self.shown = shown
            self.misty = misty
            self.people = people
        }

        /// Night limits for a photo something dates or tags as night or twilight, and for an undated one at a place
        /// at night or twilight; day limits otherwise.
        var limits: Limits {
            switch self.shown ?? self.sky {
            case .night?, .twilight?: .night
            default: .day
            }
        }
    }

    /// Where a measure turns a photo down.
    ///
    /// Day, from the bench's eight anchor photos and the first nine stock photos, which all pass with a wide margin:
    /// their softest has a Laplacian variance of 219 where the gate asks 30 (a 2-px blur at 256 px gives 5.5), their
    /// flattest a luminance spread of 23 where it asks 6.
    ///
    /// Night, from night photographs: the stock night and twilight photos (Infinite Sea, Darkest Hour, summer 1am) and
    /// the same three from their packages, and four night scenes as a camera records them (`night-*.jpg` in the
    /// tests' fixtures: a city, a harbour, stars, a street) whose black sky covers 50 to 96 % of the frame (the day's
    /// limit turns them all down as `clipped` or `dark`). A night photo is black but for its lights: only a frame black
    /// to 99 % is dark, and only blown highlights over a third of it clipped. The softest, Darkest Hour (a lake in mist
    /// at dusk), has a Laplacian variance of 6.3; the gate asks 4 at night, where the tests' 24-px blurred photo has 1.9.
    ///
    /// Mist and fog that tags or categories name are smooth by nature: they are never `blurred`.
    struct Limits: Sendable, Equatable {
        let dark: Double
        let bright: Double
        /// Black and white together at or past this share: clipped (night: white alone).
        let clipped: Double
        let countsBlackAsClipped: Bool
        let flat: Double
        let blurred: Double

        static let day = Limits(dark: 0.95, bright: 0.85, clipped: 0.5, countsBlackAsClipped: true, flat: 6, blurred: 30)
        static let night = Limits(dark: 0.99, bright: 0.85, clipped: 0.35, countsBlackAsClipped: false, flat: 3, blurred: 4)
    }

    /// The mean luminance under which an undated photo is no day photo: the stock and anchor day photos average 81 to
    /// 176.
    static let darkestDay = 40.0
    /// The share of dark pixels (luminance 40 or less) from which an undated photo's light says night. Night
    /// photographs are dark over most of the frame: the four night scenes of the tests 0.78 to 1.0. Day photos, even
    /// dark ones, are not: the bench's eight anchors and the stock day, golden and twilight photos 0 to 0.33 (a mean
    /// luminance could not tell them apart: night stock photos average 70 and 89, day photos 81 to 176). The stock night
    /// photos are dusky art (0.11 and 0.16) and would not pass: stock photos are not gated.
    static let nightLight = 0.5

    /// Mean luminance, 0...255.
    package let mean: Double
    /// Standard deviation of the luminance.
    package let spread: Double
    /// Shares of the pixels at luminance 8 or less, and 247 or more.
    package let black: Double
    package let white: Double
    /// Share of the pixels at luminance 40 or less.
    package let dark: Double
    /// Variance of the 4-neighbour Laplacian of the luminance.
    package let sharpness: Double
    /// What it shows: skin, faces (``PhotoContent``).
    package let content: PhotoContent

    /// The verdict by day's limits, for a photo nothing is known of.
    package var verdict: Verdict { self.verdict(within: .day, misty: false) }

    func verdict(within limits: Limits, misty: Bool) -> Verdict {
        if self.black >= limits.dark { return .dark }
        if self.white >= limits.bright { return .bright }
        if (limits.countsBlackAsClipped ? self.black : 0) + self.white >= limits.clipped { return .clipped }
        if self.spread < limits.flat { return .flat }
        if self.sharpness < limits.blurred, !misty { return .blurred }
        if self.content.skin > PhotoContent.skinLimit { return .skin }
        return .pass
    }

    /// The verdict for a photo expected to suit `expectation`.
    func verdict(for expectation: Expectation) -> Verdict {
        let verdict = self.verdict(within: expectation.limits, misty: expectation.misty)
        guard verdict == .pass else { return verdict }
        if self.content.showsPeople && !expectation.people { return .people }
        guard expectation.shown == nil else { return verdict }
        if expectation.sky == .day && self.mean < Self.darkestDay { return .darkForDay }
        if expectation.sky == .night && self.dark < Self.nightLight { return .brightForNight }
        return .pass
    }

    /// The copy the gate judges: `image` box-shrunk by a whole factor to 256 px or less on its long side.
    package static func reduced(_ image: RGBImage) -> RGBImage {
        BoxShrink.apply(image, factor: max(1, (max(image.width, image.height) + 255) / 256))
    }

    /// The photo's measures, on its reduced copy.
    package init(_ image: RGBImage) {
        let small = Self.reduced(image)
        let (width, height) = (small.width, small.height)
        var luminance = [Int32](repeating: 0, count: width * height)
        var sum = 0.0
        var squares = 0.0
        var black = 0
        var white = 0
        var dark = 0
        let weights = SRGB.luminance256
        small.pixels.withUnsafeBufferPointer { pixels in
            for index in 0..<(width * height) {
                let (red, green, blue) = (Int32(pixels[3 * index]), Int32(pixels[3 * index + 1]), Int32(pixels[3 * index + 2]))
                let value = (weights.red * red + weights.green * green + weights.blue * blue + 128) >> 8
                luminance[index] = value
                sum += Double(value)
                squares += Double(value * value)
                if value <= 8 { black += 1 }
                if value <= 40 { dark += 1 }
                if value >= 247 { white += 1 }
            }
        }
        let count = Double(max(1, width * height))
        self.mean = sum / count
        self.spread = max(0, squares / count - self.mean * self.mean).squareRoot()
        (self.black, self.white, self.dark) = (Double(black) / count, Double(white) / count, Double(dark) / count)
        self.content = PhotoContent(small)
        var laplacians = 0.0
        var laplacianSquares = 0.0
        var inner = 0.0
        if width > 2, height > 2 {
            for y in 1..<(height - 1) {
                for x in 1..<(width - 1) {
                    let index = y * width + x
                    let value = Double(
                        luminance[index - width] + luminance[index + width] + luminance[index - 1] + luminance[index + 1] - 4 * luminance[index]
                    )
                    laplacians += value
                    laplacianSquares += value * value
                    inner += 1
                }
            }
        }
        let meanLaplacian = laplacians / max(1, inner)
        self.sharpness = inner > 0 ? laplacianSquares / inner - meanLaplacian * meanLaplacian : 0
    }
}

/// A photo the quality gate turned down (``PhotoQuality``): the source offers the next candidate, as for one that
/// cannot be decoded.
struct PhotoRejected: Error, Sendable, CustomStringConvertible {
    package let verdict: PhotoQuality.Verdict
    /// What the photo measured, kept so that it is not measured again.
    var measures: PhotoQuality? = nil
    package var description: String { "the photo failed the quality gate (\(self.verdict.rawValue))" }
}
