/// The light effect: three box blurs approximating a Gaussian, then saturation and a tint.
///
/// The blur is computed on a copy reduced by an integer factor (block averages), with box widths kept exact
/// by fractional end taps, and interpolated back bilinearly; saturation and tint are applied at the reduced
/// size because they commute with interpolation except where values clamp. Tests hold the result within
/// 40 dB PSNR of a full-resolution floating-point implementation.
package enum LightEffect {
    /// The effect before its enlarging: what a prepared photo keeps (see ``ReducedEffect``).
    package static func reduced(_ image: RGBImage, style: EffectStyle) -> ReducedEffect {
        let full = PixelSize(width: image.width, height: image.height)
        let (factor, size) = self.reduction(of: full, style: style)
        var reduced = ReducedImage(image, factor: factor, size: size)
        let width = Double(EffectStyle.boxWidth(radius: style.radius(outputHeight: image.height))) / Double(factor)
        reduced.blur(boxWidth: width)
        reduced.blur(boxWidth: width)
        reduced.blur(boxWidth: width)
        reduced.applySaturationAndTint(style: style)
        return ReducedEffect(values: reduced.values, reduced: size, full: full, factor: factor)
    }

    /// How much smaller the blur of an image of `size` is computed (the reduced Gaussian keeps a radius of at least
    /// about 6 px), and the size it is computed at.
    static func reduction(of size: PixelSize, style: EffectStyle) -> (factor: Int, size: PixelSize) {
        let factor = max(1, min(Int(total: style.radius(outputHeight: size.height) / 6), 16, size.width, size.height))
        return (factor, PixelSize(width: (size.width + factor - 1) / factor, height: (size.height + factor - 1) / factor))
    }
}

/// A float RGB image at 1/factor of a full-size image, each pixel the average of its block.
private struct ReducedImage {
    let width: Int
    let height: Int
    var values: [Float]

    init(_ image: RGBImage, factor: Int, size: PixelSize) {
        self.width = size.width
        self.height = size.height
        let (w, h, f) = (self.width, self.height, factor)
        var values = [Float](repeating: 0, count: w * h * 3)
        values.withUnsafeMutableBufferPointer { values in
            BlockSums.forEachRow(of: image, factor: f, columns: w, rows: h) { by, sums in
                let rowsIn = min(f, image.height - by * f)
                for bx in 0..<w {
                    let count = Float(rowsIn * min(f, image.width - bx * f))
                    let o = (by * w + bx) * 3
                    for c in 0..<3 { values[o + c] = Float(sums[bx * 3 + c]) / count }
                }
            }
        }
        self.values = values
    }

    /// One 2-D box blur of (real) width `boxWidth`, edges extended: a horizontal then a vertical pass.
    mutating func blur(boxWidth: Double) {
        let (w, h) = (self.width, self.height)
        var line = [Float](repeating: 0, count: max(w, h))
        self.values.withUnsafeMutableBufferPointer { values in
            line.withUnsafeMutableBufferPointer { line in
                for y in 0..<h {
                    for c in 0..<3 { boxLine(values, start: y * w * 3 + c, count: w, step: 3, width: boxWidth, scratch: line) }
                }
                for x in 0..<w {
                    for c in 0..<3 { boxLine(values, start: x * 3 + c, count: h, step: w * 3, width: boxWidth, scratch: line) }
                }
            }
        }
    }

    mutating func applySaturationAndTint(style: EffectStyle) {
        let s = Float(style.saturation)
        let tintAlpha = Float(style.tint?.alpha ?? 0)
        let tintValue = Float((style.tint?.white ?? 0) * 255) * tintAlpha
        if s == 1 && style.tint == nil { return }
        let (wr, wg, wb) = (Float(SRGB.luminance.red), Float(SRGB.luminance.green), Float(SRGB.luminance.blue))
        self.values.withUnsafeMutableBufferPointer { v in
            var i = 0
            while i < v.count {
                let r = v[i]
                let g = v[i + 1]
                let b = v[i + 2]
                let luma = wr * r + wg * g + wb * b
                let base = luma * (1 - s)
                v[i] = tintValue + (1 - tintAlpha) * min(max(base + s * r, 0), 255)
                v[i + 1] = tintValue + (1 - tintAlpha) * min(max(base + s * g, 0), 255)
                v[i + 2] = tintValue + (1 - tintAlpha) * min(max(base + s * b, 0), 255)
                i += 3
            }
        }
    }
}

/// A box filter of real width `width` along one line, edges extended: 2k+1 full taps plus two end taps
/// weighted by the fraction left over, so that the filter's width (and variance) matches exactly.
private func boxLine(
    _ values: UnsafeMutableBufferPointer<Float>,
    start: Int,
    count: Int,
    step: Int,
    width: Double,
    scratch: UnsafeMutableBufferPointer<Float>
) {
    if width <= 1 || count == 1 { return }
    for i in 0..<count { scratch[i] = values[start + i * step] }
    let k = Int(total: ((width - 1) / 2).rounded(.down))
    let edge = Float((width - Double(2 * k + 1)) / 2)
    let scale = Float(1 / width)
    let last = count - 1
    @inline(__always) func at(_ i: Int) -> Float { scratch[min(max(i, 0), last)] }
    var sum: Float = 0
    for i in -k...k { sum += at(i) }
    for i in 0..<count {
        values[start + i * step] = (sum + edge * (at(i - k - 1) + at(i + k + 1))) * scale
        sum += at(i + k + 1) - at(i - k)
    }
}
