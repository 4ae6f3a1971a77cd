/// The blurred copy's look, after UIImage+ImageEffects' `applyLightEffect` family that CoreBackground used.
package enum EffectStyle: String, Sendable, CaseIterable, Hashable {
    /// Radius 30 pt, saturation 1.8, white at alpha 0.3 (CoreBackground's choice).
    case light
    /// Radius 20 pt, saturation 1.8, white 0.97 at alpha 0.82.
    case extralight
    /// Radius 20 pt, saturation 1.8, white 0.11 at alpha 0.73.
    case dark
    /// Radius 30 pt blur only: no saturation, no tint.
    case none

    /// Blur radius in points of a 568 pt tall screen.
    package var radiusPoints: Double {
        switch self {
        case .light, .none: 30
        case .extralight, .dark: 20
        }
    }

    package var saturation: Double { self == .none ? 1 : 1.8 }

    /// Tint as (white level 0...1, alpha), composited source-over after saturation.
    package var tint: (white: Double, alpha: Double)? {
        switch self {
        case .light: (1.0, 0.3)
        case .extralight: (0.97, 0.82)
        case .dark: (0.11, 0.73)
        case .none: nil
        }
    }

    /// Radius in pixels for an output `height` pixels tall: 30 pt at 2x on a 568 pt screen is 60 px at 1136 px.
    package func radius(outputHeight height: Int) -> Double {
        self.radiusPoints * Double(height) / 568
    }

    /// Box width of each of the three passes that approximate a Gaussian of radius `r` (always odd).
    package static func boxWidth(radius r: Double) -> Int {
        var d = Int(total: (r * 3 * (2 * Double.pi).squareRoot() / 4 + 0.5).rounded(.down))
        if d % 2 == 0 { d += 1 }
        return max(d, 1)
    }
}
