import Foundation

/// The pixel size to ask Backdrop for: a view's size in points times the screen's scale, brought within the API's
/// limits (each side 1...2048, at most 4,000,000 pixels) keeping the aspect ratio. A larger screen shows the image
/// slightly enlarged: a blurred background hides it.
public struct PixelSize: Sendable, Hashable {
    public static let maxSide = 2048
    public static let maxPixels = 4_000_000

    public let width: Int
    public let height: Int

    /// `width` x `height` pixels, brought within the limits.
    public init(width: Int, height: Int) {
        self.init(width: Double(width), height: Double(height), scale: 1)
    }

    /// A view's size in points on a screen of `scale` pixels a point, brought within the limits.
    public init(width: Double, height: Double, scale: Double) {
        let scale = scale.isFinite && scale > 0 ? scale : 1
        // Finite and at most a million pixels a side before the limits apply, so that no product overflows.
        let side = { (points: Double) in points.isFinite ? min(max(points * scale, 1), 1_000_000) : 1 }
        var w = side(width)
        var h = side(height)
        let shrink = min(1, Double(Self.maxSide) / max(w, h), (Double(Self.maxPixels) / (w * h)).squareRoot())
        w *= shrink
        h *= shrink
        // Rounded, then kept inside the limits that rounding up could cross.
        let roundedWidth = min(Self.maxSide, max(1, Int(w.rounded())))
        let roundedHeight = min(Self.maxSide, max(1, Int(h.rounded())))
        self.width = roundedWidth
        self.height = roundedWidth * roundedHeight > Self.maxPixels ? Self.maxPixels / roundedWidth : roundedHeight
    }
}
