import Foundation

/// The pixel size to ask Backdrop for: a view's size in points times the screen's scale, brought within the API's
/// limits (each side 1...2048, at most 4,000,000 pixels) keeping the aspect ratio. A larger screen shows the image
/// slightly enlarged: a blurred background hides it.
public struct PixelSize: Sendable, Hashable {
    public static let maxSide = 2048
    public static let maxPixels = 4_000_000

    public let width: Int
    public let height: Int
    /// What the request says: the size in points with `dpr` when the scale is one Backdrop takes (1.5, 2 or 3), the
    /// points are whole and their pixels fit the limits as they are (Backdrop then lowers the lossy formats' quality
    /// for the denser screen); else the pixels, at density 1.
    let query: Query

    struct Query: Sendable, Hashable {
        let width: Int
        let height: Int
        let dpr: String?
    }

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
        let densities: [Double: String] = [1.5: "1.5", 2: "2", 3: "3"]
        if let dpr = densities[scale], width.rounded() == width, height.rounded() == height,
            Int((width * scale).rounded()) == self.width, Int((height * scale).rounded()) == self.height
        {
            self.query = Query(width: Int(width), height: Int(height), dpr: dpr)
        } else {
            self.query = Query(width: self.width, height: self.height, dpr: nil)
        }
    }
}
