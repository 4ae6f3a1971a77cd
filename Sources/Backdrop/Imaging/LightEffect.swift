import CPixels

/// The light effect: three box blurs approximating a Gaussian, then saturation and a tint.
///
/// The blur is computed on a copy reduced by an integer factor (block averages), with box widths kept exact
/// by fractional end taps, and interpolated back bilinearly; saturation and tint are applied at the reduced
/// size because they commute with interpolation except where values clamp. Tests hold the result within
/// 40 dB PSNR of a full-resolution floating-point implementation.
package enum LightEffect {
    package static func apply(to image: RGBImage, style: EffectStyle) -> RGBImage {
        let radius = style.radius(outputHeight: image.height)
        let boxWidth = EffectStyle.boxWidth(radius: radius)
        let factor = self.reductionFactor(radius: radius, size: PixelSize(width: image.width, height: image.height))
        var reduced = ReducedImage(image, factor: factor)
        let width = Double(boxWidth) / Double(factor)
        reduced.blur(boxWidth: width)
        reduced.blur(boxWidth: width)
        reduced.blur(boxWidth: width)
        reduced.applySaturationAndTint(style: style)
        return reduced.enlarged()
    }

    /// How much smaller the blur is computed: the reduced Gaussian keeps a radius of at least about 6 px.
    static func reductionFactor(radius: Double, size: PixelSize) -> Int {
        let factor = Int(radius / 6)
        return max(1, min(factor, 16, size.width, size.height))
    }
}

/// A float RGB image at 1/factor of a full-size image, remembering where each block's centre lies.
private struct ReducedImage {
    let fullWidth: Int
    let fullHeight: Int
    let factor: Int
    let width: Int
    let height: Int
    var values: [Float]

    init(_ image: RGBImage, factor: Int) {
        self.fullWidth = image.width
        self.fullHeight = image.height
        self.factor = factor
        self.width = (image.width + factor - 1) / factor
        self.height = (image.height + factor - 1) / factor
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
        self.values.withUnsafeMutableBufferPointer { v in
            var i = 0
            while i < v.count {
                let r = v[i]
                let g = v[i + 1]
                let b = v[i + 2]
                let luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
                let base = luma * (1 - s)
                v[i] = tintValue + (1 - tintAlpha) * min(max(base + s * r, 0), 255)
                v[i + 1] = tintValue + (1 - tintAlpha) * min(max(base + s * g, 0), 255)
                v[i + 2] = tintValue + (1 - tintAlpha) * min(max(base + s * b, 0), 255)
                i += 3
            }
        }
    }

    /// Bilinear interpolation between block centres back to the full size: each reduced row an output row needs is
    /// widened to the full width once (two are kept, as output rows move down), then every output row is the two
    /// widened rows around it mixed in one vectorised loop (`bd_lerp_to_bytes`).
    func enlarged() -> RGBImage {
        let xs = Self.interpolation(fullLength: self.fullWidth, reducedLength: self.width, factor: self.factor)
        let ys = Self.interpolation(fullLength: self.fullHeight, reducedLength: self.height, factor: self.factor)
        let (w, fullWidth, rowLength) = (self.width, self.fullWidth, self.fullWidth * 3)
        let left = xs.map { $0.0 * 3 }
        let right = xs.map { min($0.0 + 1, w - 1) * 3 }
        var upper = (row: -1, values: [Float](repeating: 0, count: rowLength))
        var lower = (row: -1, values: [Float](repeating: 0, count: rowLength))
        func widen(_ row: Int, into widened: inout (row: Int, values: [Float])) {
            widened.row = row
            self.values.withUnsafeBufferPointer { v in
                widened.values.withUnsafeMutableBufferPointer { out in
                    let base = row * w * 3
                    for x in 0..<fullWidth {
                        let (a, b, fx) = (base + left[x], base + right[x], xs[x].1)
                        for c in 0..<3 { out[3 * x + c] = v[a + c] + (v[b + c] - v[a + c]) * fx }
                    }
                }
            }
        }
        return RGBImage(width: fullWidth, height: self.fullHeight) { out in
            guard let o = out.baseAddress else { return }
            for y in 0..<self.fullHeight {
                let (y0, fy) = ys[y]
                let y1 = min(y0 + 1, self.height - 1)
                if upper.row != y0 {
                    if lower.row == y0 { swap(&upper, &lower) } else { widen(y0, into: &upper) }
                }
                if lower.row != y1 { widen(y1, into: &lower) }
                bd_lerp_to_bytes(upper.values, lower.values, fy, rowLength, o + y * rowLength)
            }
        }
    }

    /// For each full-size position: the reduced sample at or before it and the fraction towards the next.
    private static func interpolation(fullLength: Int, reducedLength: Int, factor: Int) -> [(Int, Float)] {
        func centre(_ j: Int) -> Double {
            Double(j * factor + min((j + 1) * factor, fullLength)) / 2
        }
        var result = [(Int, Float)]()
        result.reserveCapacity(fullLength)
        var j = 0
        for x in 0..<fullLength {
            let position = Double(x) + 0.5
            while j + 1 < reducedLength && centre(j + 1) <= position { j += 1 }
            if position <= centre(0) || j + 1 >= reducedLength {
                result.append((j, 0))
            } else {
                result.append((j, Float((position - centre(j)) / (centre(j + 1) - centre(j)))))
            }
        }
        return result
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
    let k = Int(((width - 1) / 2).rounded(.down))
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
