/// Whether a decoded photo is worth showing, judged on a copy reduced to at most 256 px on its long side (about a
/// millisecond): not nearly black or white, not clipped, not blurred (the variance of the Laplacian of its luminance),
/// not flat (documents, screenshots, a lens cap). Thresholds from the bench's eight anchor photos and the first nine
/// stock photos, which all pass with a wide margin: their softest has a Laplacian variance of 219 where the gate asks 30
/// (a 2-px blur at 256 px gives 5.5), their flattest a luminance spread of 23 where it asks 6. A lake in mist (stock
/// "Darkest Hour", 8) is as smooth as a blurred shot and is turned down: the gate cannot tell mist from blur.
///
/// A photo that nothing dates (no exact time taken, no telling tag) is judged by its light too: by day one darker
/// than ``darkestDay`` on average is no day photo, at night one brighter than ``brightestNight`` no night photo.
package struct PhotoQuality: Sendable, Equatable {
    package enum Verdict: String, Sendable, CaseIterable {
        case pass, dark, bright, clipped, blurred, flat
        case darkForDay = "dark_for_day"
        case brightForNight = "bright_for_night"
    }

    /// What the gate knows of a photo besides its pixels: the sky at the place it is for, and the sky it shows
    /// when something says (then its light is not judged).
    struct Expectation: Sendable, Equatable {
        package let sky: SunPhase?
        package let shown: SunPhase?

        package init(sky: SunPhase?, shown: SunPhase?) {
            self.sky = sky
            self.shown = shown
        }
    }

    /// Mean luminances past which an undated photo does not suit the sky: the stock night photos average 70 and 89,
    /// the stock and anchor day photos 81 to 176.
    static let darkestDay = 40.0
    static let brightestNight = 150.0

    /// Mean luminance, 0...255.
    package let mean: Double
    /// Standard deviation of the luminance.
    package let spread: Double
    /// Shares of the pixels at luminance 8 or less, and 247 or more.
    package let black: Double
    package let white: Double
    /// Variance of the 4-neighbour Laplacian of the luminance.
    package let sharpness: Double

    package var verdict: Verdict {
        if self.black >= 0.95 { return .dark }
        if self.white >= 0.85 { return .bright }
        if self.black + self.white >= 0.5 { return .clipped }
        if self.spread < 6 { return .flat }
        if self.sharpness < 30 { return .blurred }
        return .pass
    }

    /// The verdict for a photo expected to suit `expectation`.
    func verdict(for expectation: Expectation) -> Verdict {
        let verdict = self.verdict
        guard verdict == .pass, expectation.shown == nil else { return verdict }
        if expectation.sky == .day && self.mean < Self.darkestDay { return .darkForDay }
        if expectation.sky == .night && self.mean > Self.brightestNight { return .brightForNight }
        return .pass
    }

    /// The photo's measures, on its reduced copy.
    package init(_ image: RGBImage) {
        let factor = max(1, (max(image.width, image.height) + 255) / 256)
        let small = BoxShrink.apply(image, factor: factor)
        let (width, height) = (small.width, small.height)
        var luminance = [Int32](repeating: 0, count: width * height)
        var sum = 0.0
        var squares = 0.0
        var black = 0
        var white = 0
        small.pixels.withUnsafeBufferPointer { pixels in
            for index in 0..<(width * height) {
                let value = (54 * Int32(pixels[3 * index]) + 183 * Int32(pixels[3 * index + 1]) + 19 * Int32(pixels[3 * index + 2]) + 128) >> 8
                luminance[index] = value
                sum += Double(value)
                squares += Double(value * value)
                if value <= 8 { black += 1 }
                if value >= 247 { white += 1 }
            }
        }
        let count = Double(max(1, width * height))
        self.mean = sum / count
        self.spread = max(0, squares / count - self.mean * self.mean).squareRoot()
        (self.black, self.white) = (Double(black) / count, Double(white) / count)
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
    package var description: String { "the photo failed the quality gate (\(self.verdict.rawValue))" }
}
