/// The screen's pixel density a render is for (`dpr`): `width` and `height` are CSS pixels, and the render has `factor`
/// times as many device pixels on each side. The lossy formats' fidelity floor falls as density rises: each device pixel
/// is smaller on the screen, so the same artefacts are finer to the eye (1 dB a step; see Density in docs/api.md).
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

    /// The dB the lossy formats' floor at blur 0 falls by at this density (the floor at blur 1 stays: smooth
    /// gradients band at any density).
    var floorDrop: Double {
        switch self {
        case .x1: 0
        case .x1_5: 1
        case .x2: 2
        case .x3: 3
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
        settings.sharpFloor = self.sharpFloor - density.floorDrop
        return settings
    }
}
