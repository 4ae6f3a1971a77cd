import Foundation

/// What text reads over a background: for the top and bottom bands (15 % of the height each) and the whole of both
/// layers (the sharp photo and the blurred one), the WCAG 2 contrast of white and of black text, the least scrim
/// that brings each to 4.5:1, and the text colour that needs less of it. Measured on 5,000 to 8,000 pixels a region of
/// the images a render already has, and kept with the blurred preview.
package struct Legibility: Sendable, Equatable, Encodable {
    let sharp: Layer
    let blurred: Layer

    package init(sharp: RGBImage, blurred: RGBImage) {
        self.sharp = Layer(sharp)
        self.blurred = Layer(blurred)
    }

    /// The three regions of one layer.
    struct Layer: Sendable, Equatable, Encodable {
        package let top: Band
        package let bottom: Band
        package let whole: Band

        init(_ image: RGBImage) {
            let band = max(1, Int(total: (Double(image.height) * 0.15).rounded()))
            self.top = Band(LuminanceSamples(image, rows: 0..<band))
            self.bottom = Band(LuminanceSamples(image, rows: (image.height - band)..<image.height))
            self.whole = Band(LuminanceSamples(image, rows: 0..<image.height))
        }
    }

    /// One region: how white (`light`) and black (`dark`) text read over it, and which to use.
    struct Band: Sendable, Equatable, Encodable {
        /// `light` or `dark`: the text colour that needs the lighter scrim (the higher contrast when neither needs one).
        package let text: String
        package let light: Ink
        package let dark: Ink

        init(_ samples: LuminanceSamples) {
            // With no scrim both ends come from one histogram.
            let bare = samples.histogram(scrim: 0, light: true)
            self.light = Ink(samples, light: true, bare: samples.luminance(in: bare, atPercentile: 90, light: true))
            self.dark = Ink(samples, light: false, bare: samples.luminance(in: bare, atPercentile: 10, light: false))
            self.text =
                self.light.scrim < self.dark.scrim || (self.light.scrim == self.dark.scrim && self.light.contrast >= self.dark.contrast)
                ? "light" : "dark"
        }
    }

    /// White or black text over a region.
    struct Ink: Sendable, Equatable, Encodable {
        /// The WCAG 2 contrast ratio of the text against the region's light end for white text (its 90th percentile
        /// of relative luminance) or its dark end for black text (the 10th), to two decimals.
        package let contrast: Double
        /// The least opacity (0 to 1, in hundredths) of a scrim laid over the region, black behind white text and
        /// white behind black text, that brings the text to 4.5:1 at that percentile.
        package let scrim: Double

        /// `bare`: the region's luminance at the ink's percentile with no scrim.
        init(_ samples: LuminanceSamples, light: Bool, bare: Double) {
            self.contrast = (Contrast.ratio(bare, light: light) * 100).rounded(.down) / 100
            self.scrim = Contrast.least(samples, light: light, bare: bare)
        }
    }
}

/// WCAG 2 contrast against white or black text, and the scrim that reaches the target.
enum Contrast {
    /// The contrast WCAG 2 asks for body text (AA).
    static let target = 4.5
    /// The scrim is chosen for a little more, so that the whole image (not only the samples) reaches the target.
    static let aim = 4.6

    static func ratio(_ luminance: Double, light: Bool) -> Double {
        light ? 1.05 / (luminance + 0.05) : (luminance + 0.05) / 0.05
    }

    /// The least scrim in hundredths that brings the region to ``aim``, composing the samples with the scrim as a
    /// browser does (in sRGB, to whole 8-bit values). The search starts from the scrim that would bring a flat grey of
    /// the region's percentile there (usually within a hundredth or two), then gallops and bisects.
    /// `bare` is the region's luminance at the percentile with no scrim.
    static func least(_ samples: LuminanceSamples, light: Bool, bare: Double) -> Double {
        let percentile = light ? 90 : 10
        func reaches(_ hundredths: Int) -> Bool {
            self.ratio(samples.luminance(atPercentile: percentile, scrim: hundredths, light: light), light: light) >= self.aim
        }
        if self.ratio(bare, light: light) >= self.aim { return 0 }
        let grey = SRGB.encoded(bare)
        let wanted = SRGB.encoded(light ? 1.05 / self.aim - 0.05 : 0.05 * self.aim - 0.05)
        let guess = light ? 1 - wanted / max(grey, 1e-9) : (wanted - grey) / max(1 - grey, 1e-9)
        var (low, high) = (0, 100)  // low fails, high reaches (a full scrim is pure black or white)
        var probe = min(99, max(1, Int(total: (guess * 100).rounded(.up))))
        var step = 1
        if reaches(probe) {
            high = probe
            while high - step > low {
                probe = high - step
                if !reaches(probe) {
                    low = probe
                    break
                }
                high = probe
                step *= 2
            }
        } else {
            low = probe
            while low + step < high {
                probe = low + step
                if reaches(probe) {
                    high = probe
                    break
                }
                low = probe
                step *= 2
            }
        }
        while high - low > 1 {
            let middle = (low + high) / 2
            if reaches(middle) { high = middle } else { low = middle }
        }
        return Double(high) / 100
    }

}

/// 5,000 to 8,000 pixels of a region of an image, kept as 8-bit sRGB: one from each square of an even grid, at a place
/// within it that a fixed sequence chooses (a regular grid can fall in step with a photo's own pattern: on one stock
/// photo it read the 10th percentile 6 % high).
struct LuminanceSamples {
    private var red = [UInt8]()
    private var green = [UInt8]()
    private var blue = [UInt8]()

    init(_ image: RGBImage, rows: Range<Int>) {
        let step = max(1, Int(total: (Double(image.width * rows.count) / 8192).squareRoot().rounded(.up)))
        let expected = ((rows.count + step - 1) / step) * ((image.width + step - 1) / step)
        self.red.reserveCapacity(expected)
        self.green.reserveCapacity(expected)
        self.blue.reserveCapacity(expected)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        image.pixels.withUnsafeBufferPointer { pixels in
            for top in stride(from: rows.lowerBound, to: rows.upperBound, by: step) {
                for left in stride(from: 0, to: image.width, by: step) {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let y = min(top + Int((state >> 33) % UInt64(step)), rows.upperBound - 1)
                    let x = min(left + Int((state >> 45) % UInt64(step)), image.width - 1)
                    let i = (y * image.width + x) * 3
                    self.red.append(pixels[i])
                    self.green.append(pixels[i + 1])
                    self.blue.append(pixels[i + 2])
                }
            }
        }
        if self.red.isEmpty {
            let pixel = image.pixel(x: 0, y: rows.lowerBound)
            (self.red, self.green, self.blue) = ([pixel.r], [pixel.g], [pixel.b])
        }
    }

    /// Relative luminance at a percentile (nearest rank, to 1/4096: the upper edge of its bin for the light end, the
    /// lower for the dark end, so that the scrim errs on the side of more), under a scrim of `scrim` hundredths: black
    /// for light text, white for dark.
    func luminance(atPercentile percentile: Int, scrim: Int, light: Bool) -> Double {
        self.luminance(in: self.histogram(scrim: scrim, light: light), atPercentile: percentile, light: light)
    }

    static let bins = 4096

    /// How many samples fall in each 1/4096 of relative luminance under a scrim of `scrim` hundredths.
    func histogram(scrim: Int, light: Bool) -> [Int32] {
        var composed = [Float](repeating: 0, count: 256)
        for value in 0..<256 {
            let scrimmed = light ? value * (100 - scrim) : value * (100 - scrim) + 255 * scrim
            composed[value] = Float(SRGB.linear[(scrimmed + 50) / 100])
        }
        var counts = [Int32](repeating: 0, count: Self.bins + 1)
        composed.withUnsafeBufferPointer { lut in
            let (wr, wg, wb) = (Float(SRGB.luminance.red), Float(SRGB.luminance.green), Float(SRGB.luminance.blue))
            counts.withUnsafeMutableBufferPointer { counts in
                for i in self.red.indices {
                    let value = wr * lut[Int(self.red[i])] + wg * lut[Int(self.green[i])] + wb * lut[Int(self.blue[i])]
                    counts[Int(total: value * Float(Self.bins))] &+= 1
                }
            }
        }
        return counts
    }

    /// The percentile (nearest rank) of a ``histogram(scrim:light:)``.
    func luminance(in counts: [Int32], atPercentile percentile: Int, light: Bool) -> Double {
        let rank = max(1, Int(total: (Double(self.red.count) * Double(percentile) / 100).rounded(.up)))
        var seen = 0
        for bin in counts.indices {
            seen += Int(counts[bin])
            if seen >= rank { return min(1, Double(light ? bin + 1 : bin) / Double(Self.bins)) }
        }
        return 1
    }

}
