import Foundation

/// Per lossy format, the fidelity a quality is predicted to give a picture of a given detail (``ImageDetail``):
/// dB = `intercept` + `luma` x ln(luma detail + 0.5) + `chroma` x ln(chroma detail + 0.5) + `busy` x busy share +
/// `blend` x blend + `blendSquared` x blend², one line per quality of a grid, straight between them. Fitted by
/// `Benchmarks/fidelity.py --fit` to the 640x1136 renders (blur 0 to 1) of the bench's and the stock photos.
/// ``FittedQuality`` asks it for the lowest quality that clears a floor.
package struct QualityModel: Sendable {
    /// A quality of the grid and its line.
    package struct Line: Sendable {
        package let quality: Int
        package let intercept: Double
        package let luma: Double
        package let chroma: Double
        package let busy: Double
        package let blend: Double
        package let blendSquared: Double

        package init(_ quality: Int, _ intercept: Double, _ luma: Double, _ chroma: Double, _ busy: Double, _ blend: Double, _ blendSquared: Double) {
            self.quality = quality
            self.intercept = intercept
            self.luma = luma
            self.chroma = chroma
            self.busy = busy
            self.blend = blend
            self.blendSquared = blendSquared
        }

        func decibels(_ detail: ImageDetail) -> Double {
            self.intercept + self.luma * log(max(detail.luma, 0) + 0.5) + self.chroma * log(max(detail.chroma, 0) + 0.5)
                + self.busy * detail.busy + self.blend * detail.blend + self.blendSquared * detail.blend * detail.blend
        }
    }

    /// The grid's lines, by rising quality.
    package let lines: [Line]
    /// dB asked of the first encode past the floor: the fit's 5th percentile shortfall (a photo's own renders left out
    /// of the lines it is predicted by), so that about one picture in twenty needs its second encode.
    package let margin: Double
    /// dB asked of the second past the floor, once the first has shown how far the prediction was off.
    package let retryMargin: Double
    /// The most the fit's pictures fell short of their lines (each photo left out of its own), in dB: a quality
    /// predicted to clear a floor by this and ``unchecked`` more is not read back (AVIF's quality held up for the eye
    /// past blur 0.5).
    package let worst: Double
    /// dB past the worst shortfall that makes a check needless.
    static let unchecked = 0.5

    package init(lines: [Line], margin: Double, retryMargin: Double, worst: Double) {
        self.lines = lines
        self.margin = margin
        self.retryMargin = retryMargin
        self.worst = worst
    }

    /// Whether an encode at `quality` cannot fall under `floor` by the fit's experience, so needs no check.
    func clears(_ floor: Double, quality: Int, detail: ImageDetail) -> Bool {
        self.decibels(quality: quality, detail: detail) - self.worst - Self.unchecked >= floor
    }

    /// The lowest and highest qualities it chooses: the grid's first, and the encoders' best.
    package var qualities: ClosedRange<Int> { (self.lines.first?.quality ?? 0)...100 }

    /// The dB predicted at `quality` (within ``qualities``) for `detail`: past the grid's last quality, its last segment
    /// continued.
    package func decibels(quality: Int, detail: ImageDetail) -> Double {
        guard self.lines.count >= 2 else { return self.lines.first?.decibels(detail) ?? 0 }
        // The segment that holds `quality`, or the last one, continued past it.
        let upper = min(max(self.lines.firstIndex { $0.quality >= quality } ?? self.lines.count - 1, 1), self.lines.count - 1)
        let (a, b) = (self.lines[upper - 1], self.lines[upper])
        let (low, high) = (a.decibels(detail), b.decibels(detail))
        return low + (high - low) * Double(quality - a.quality) / Double(b.quality - a.quality)
    }

    /// The lowest quality predicted to give `floor` plus `margin` dB, less `offset` (what an encode measured short of
    /// its prediction); the highest when none is.
    package func quality(detail: ImageDetail, floor: Double, margin: Double, offset: Double = 0) -> Int {
        self.qualities.first { self.decibels(quality: $0, detail: detail) - offset >= floor + margin } ?? self.qualities.upperBound
    }

    package static func of(_ format: OutputFormat) -> QualityModel {
        switch format {
        case .jpeg, .png: Self.jpeg
        case .webp: Self.webp
        case .avif: Self.avif
        }
    }
}
