/// The screen's pixel density a render is for (`dpr`): `width` and `height` are CSS pixels, and the render has `factor`
/// times as many device pixels on each side. The lossy formats' quality falls as density rises: each device pixel is
/// smaller on the screen, so the same artefacts are finer to the eye (5 points a step; see Density in docs/api.md).
package enum Density: String, Sendable, Hashable, CaseIterable {
    case x1 = "1"
    case x1_5 = "1.5"
    case x2 = "2"
    case x3 = "3"

    /// Device pixels per CSS pixel.
    package var factor: Double {
        switch self {
        case .x1: 1
        case .x1_5: 1.5
        case .x2: 2
        case .x3: 3
        }
    }

    /// The points JPEG, WebP and sharp AVIF quality fall by at this density (blurred AVIF keeps its quality: smooth
    /// gradients band at any density).
    var qualityDrop: Int {
        switch self {
        case .x1: 0
        case .x1_5: 5
        case .x2: 10
        case .x3: 15
        }
    }

    /// `dpr` as the API reads it: 1, 1.5, 2 or 3 (also written 1.0, 2.0, 3.0); nil for anything else.
    init?(parameter text: String) {
        switch text {
        case "1", "1.0": self = .x1
        case "1.5": self = .x1_5
        case "2", "2.0": self = .x2
        case "3", "3.0": self = .x3
        default: return nil
        }
    }

    /// A CSS length in device pixels, rounded to the nearest.
    package func pixels(_ css: Int) -> Int { Int(total: (Double(css) * self.factor).rounded()) }
}

extension EncoderSettings {
    /// These settings for renders at `density`.
    package func at(_ density: Density) -> EncoderSettings {
        guard density != .x1 else { return self }
        var settings = self
        settings.jpegQuality = max(1, self.jpegQuality - density.qualityDrop)
        settings.webpQuality = max(0, self.webpQuality - density.qualityDrop)
        settings.avifQuality = max(0, self.avifQuality - density.qualityDrop)
        return settings
    }
}
