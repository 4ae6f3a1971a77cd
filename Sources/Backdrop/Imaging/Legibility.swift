import Foundation

/// What text reads over a background: for the top and bottom bands (15 % of the height each) and the whole of both
/// layers (the sharp photo and the blurred one), the WCAG 2 contrast of white and of black text, the least scrim
/// that brings each to 4.5:1, and the text colour that needs less of it. Measured on about 8,000 pixels a region of
/// the images a render already has, and kept with the blurred preview.
package struct Legibility: Sendable, Equatable, Encodable {
    package let sharp: Layer
    package let blurred: Layer

    package init(sharp: RGBImage, blurred: RGBImage) {
        self.sharp = Layer(sharp)
        self.blurred = Layer(blurred)
    }

    /// The three regions of one layer.
    package struct Layer: Sendable, Equatable, Encodable {
        package let top: Band
        package let bottom: Band
        package let whole: Band

        init(_ image: RGBImage) {
            let band = max(1, Int((Double(image.height) * 0.15).rounded()))
            self.top = Band(LuminanceSamples(image, rows: 0..<band))
            self.bottom = Band(LuminanceSamples(image, rows: (image.height - band)..<image.height))
            self.whole = Band(LuminanceSamples(image, rows: 0..<image.height))
        }
    }

    /// One region: how white (`light`) and black (`dark`) text read over it, and which to use.
    package struct Band: Sendable, Equatable, Encodable {
        /// `light` or `dark`: the text colour that needs the lighter scrim (the higher contrast when neither needs one).
        package let text: String
        package let light: Ink
        package let dark: Ink

        init(_ samples: LuminanceSamples) {
            self.light = Ink(samples, light: true)
            self.dark = Ink(samples, light: false)
            self.text =
                self.light.scrim < self.dark.scrim || (self.light.scrim == self.dark.scrim && self.light.contrast >= self.dark.contrast)
                ? "light" : "dark"
        }
    }

    /// White or black text over a region.
    package struct Ink: Sendable, Equatable, Encodable {
        /// The WCAG 2 contrast ratio of the text against the region's light end for white text (its 90th percentile
        /// of relative luminance) or its dark end for black text (the 10th), to two decimals.
        package let contrast: Double
        /// The least opacity (0 to 1, in hundredths) of a scrim laid over the region, black behind white text and
        /// white behind black text, that brings the text to 4.5:1 at that percentile.
        package let scrim: Double

        init(_ samples: LuminanceSamples, light: Bool) {
            let contrast = Contrast.ratio(samples.luminance(atPercentile: light ? 90 : 10, scrim: 0, light: light), light: light)
            self.contrast = (contrast * 100).rounded(.down) / 100
            self.scrim = Contrast.least(samples, light: light)
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

    /// The least scrim in hundredths that brings the region to ``aim``: a bisection over the opacity, each step
    /// composing the samples with the scrim as a browser does (in sRGB, to whole 8-bit values).
    static func least(_ samples: LuminanceSamples, light: Bool) -> Double {
        let percentile = light ? 90 : 10
        func reaches(_ hundredths: Int) -> Bool {
            self.ratio(samples.luminance(atPercentile: percentile, scrim: hundredths, light: light), light: light) >= self.aim
        }
        if reaches(0) { return 0 }
        var (low, high) = (0, 100)  // low fails, high reaches (a full scrim is pure black or white)
        while high - low > 1 {
            let middle = (low + high) / 2
            if reaches(middle) { high = middle } else { low = middle }
        }
        return Double(high) / 100
    }
}

/// About 8,000 pixels of a region of an image, kept as 8-bit sRGB: one from each square of an even grid, at a place
/// within it that a fixed sequence chooses (a regular grid can fall in step with a photo's own pattern: on one stock
/// photo it read the 10th percentile 6 % high).
struct LuminanceSamples {
    private var red = [UInt8]()
    private var green = [UInt8]()
    private var blue = [UInt8]()

    init(_ image: RGBImage, rows: Range<Int>) {
        let step = max(1, Int((Double(image.width * rows.count) / 8192).squareRoot()))
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

    /// Relative luminance at a percentile (nearest rank), under a scrim of `scrim` hundredths: black for light text,
    /// white for dark.
    func luminance(atPercentile percentile: Int, scrim: Int, light: Bool) -> Double {
        var composed = [UInt8](repeating: 0, count: 256)
        for value in 0..<256 {
            let scrimmed = light ? value * (100 - scrim) : value * (100 - scrim) + 255 * scrim
            composed[value] = UInt8((scrimmed + 50) / 100)
        }
        var values = [Double]()
        values.reserveCapacity(self.red.count)
        for i in self.red.indices {
            values.append(
                0.2126 * Self.linear[Int(composed[Int(self.red[i])])] + 0.7152 * Self.linear[Int(composed[Int(self.green[i])])] + 0.0722
                    * Self.linear[Int(composed[Int(self.blue[i])])]
            )
        }
        let rank = max(1, Int((Double(values.count) * Double(percentile) / 100).rounded(.up)))
        return Self.select(&values, rank - 1)
    }

    /// The `k`-th smallest value (quickselect).
    private static func select(_ values: inout [Double], _ k: Int) -> Double {
        var (low, high) = (0, values.count - 1)
        while low < high {
            let pivot = values[(low + high) / 2]
            var (i, j) = (low, high)
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    values.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { high = j } else if k >= i { low = i } else { return values[k] }
        }
        return values[k]
    }

    /// sRGB to linear light, for each 8-bit value (the WCAG 2 formula).
    static let linear: [Double] = (0..<256).map { value in
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }
}
