@testable import Backdrop

/// The light effect exactly as docs/picture.md defines it, in Double at full resolution, with its own constants (none read
/// from the production code, so that a wrong constant there fails the fidelity tests): three box blurs of odd integer
/// width d with edge extension (horizontal and vertical), saturation with Rec.709 luma, clamp, tint, then the blend.
enum ReferenceEffect {
    /// docs/picture.md's numbers: blur radius in points of a 568-point screen, saturation, and the tint (white, alpha).
    struct Constants {
        let radiusPoints: Double
        let saturation: Double
        let tint: (white: Double, alpha: Double)
    }

    static func constants(_ style: EffectStyle) -> Constants {
        switch style {
        case .light: Constants(radiusPoints: 30, saturation: 1.8, tint: (1.0, 0.3))
        case .extralight: Constants(radiusPoints: 20, saturation: 1.8, tint: (0.97, 0.82))
        case .dark: Constants(radiusPoints: 20, saturation: 1.8, tint: (0.11, 0.73))
        case .none: Constants(radiusPoints: 30, saturation: 1, tint: (0, 0))
        }
    }

    /// `d = floor(r * 3 * sqrt(2 * pi) / 4 + 0.5)`, made odd, for the radius `r` scaled to the output height.
    static func boxWidth(_ style: EffectStyle, height: Int) -> Int {
        let r = self.constants(style).radiusPoints * Double(height) / 568
        var d = Int((r * 3 * (2 * Double.pi).squareRoot() / 4 + 0.5).rounded(.down))
        if d % 2 == 0 { d += 1 }
        return max(d, 1)
    }

    static func render(_ sharp: RGBImage, style: EffectStyle, blur p: Double) -> RGBImage {
        let d = self.boxWidth(style, height: sharp.height)
        let (w, h) = (sharp.width, sharp.height)
        var values = sharp.pixels.map(Double.init)
        values.withUnsafeMutableBufferPointer { v in
            var line = [Double](repeating: 0, count: max(w, h))
            line.withUnsafeMutableBufferPointer { line in
                for _ in 0..<3 {
                    for y in 0..<h { for c in 0..<3 { box(v, start: y * w * 3 + c, count: w, step: 3, width: d, line: line) } }
                    for x in 0..<w { for c in 0..<3 { box(v, start: x * 3 + c, count: h, step: w * 3, width: d, line: line) } }
                }
            }
            let constants = Self.constants(style)
            let s = constants.saturation
            let (white, alpha) = constants.tint
            for i in stride(from: 0, to: v.count, by: 3) {
                let luma = 0.2126 * v[i] + 0.7152 * v[i + 1] + 0.0722 * v[i + 2]
                for c in 0..<3 {
                    let saturated = min(max(luma * (1 - s) + s * v[i + c], 0), 255)
                    v[i + c] = alpha * white * 255 + (1 - alpha) * saturated
                }
            }
        }
        let pixels = zip(sharp.pixels, values).map { sharp, effect in
            UInt8(min(max(((1 - p) * Double(sharp) + p * effect).rounded(), 0), 255))
        }
        return RGBImage(width: w, height: h, pixels: pixels)
    }

    private static func box(
        _ v: UnsafeMutableBufferPointer<Double>,
        start: Int,
        count: Int,
        step: Int,
        width d: Int,
        line: UnsafeMutableBufferPointer<Double>
    ) {
        let k = (d - 1) / 2
        for i in 0..<count { line[i] = v[start + i * step] }
        func at(_ i: Int) -> Double { line[min(max(i, 0), count - 1)] }
        var sum = 0.0
        for i in -k...k { sum += at(i) }
        for i in 0..<count {
            v[start + i * step] = sum / Double(d)
            sum += at(i + k + 1) - at(i - k)
        }
    }
}
