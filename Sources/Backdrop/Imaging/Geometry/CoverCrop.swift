/// Cover-fits an image to a size and crops around a focus (the centre unless given), in one separable resampling pass over the crop region only.
///
/// The filter is a triangle whose support widens with the shrink factor (area-style averaging), so shrinking
/// does not alias, and it is plain bilinear interpolation when enlarging; a reduction by 2x or more is first
/// box-shrunk by its whole part (``BoxShrink``), so the triangle never reduces by 2x or more. Horizontally first,
/// over the source rows the vertical pass reads, a pixel's three channels as the lanes of a SIMD4; then vertically,
/// each output row from two or three source rows in one loop the compiler vectorises. 8-bit integer weights and 16-bit
/// sums (eight or sixteen lanes to a vector instruction, where 32-bit sums took four), the same bytes as a scalar
/// filter.
package enum CoverCrop {
    /// The part of a `source`-sized image a cover crop to `size` keeps: its left and top edges in source pixels, and
    /// the scale. Centred on `focus` (fractions of the source's sides) as far as the image allows.
    static func window(source: PixelSize, size: PixelSize, focus: Focus = .centre) -> (left: Double, top: Double, scale: Double) {
        let scale = max(Double(size.width) / Double(source.width), Double(size.height) / Double(source.height))
        let (width, height) = (Double(size.width) / scale, Double(size.height) / scale)
        if focus == .centre { return ((Double(source.width) - width) / 2, (Double(source.height) - height) / 2, scale) }
        func edge(_ point: Double, _ side: Double, _ total: Double) -> Double { min(max(point * total - side / 2, 0), total - side) }
        return (edge(focus.x, width, Double(source.width)), edge(focus.y, height, Double(source.height)), scale)
    }

    /// Where `focus` (fractions of the source's sides) falls in the crop, as fractions of its sides, kept within it.
    static func place(_ focus: Focus, source: PixelSize, size: PixelSize, cropFocus: Focus) -> Focus {
        let (left, top, scale) = self.window(source: source, size: size, focus: cropFocus)
        func inside(_ value: Double) -> Double { min(max(value, 0), 1) }
        return Focus(
            x: inside((focus.x * Double(source.width) - left) * scale / Double(size.width)),
            y: inside((focus.y * Double(source.height) - top) * scale / Double(size.height))
        )
    }

    package static func apply(_ image: RGBImage, to size: PixelSize, focus: Focus = .centre) -> RGBImage {
        if image.width == size.width && image.height == size.height { return image }
        let scale = max(Double(size.width) / Double(image.width), Double(size.height) / Double(image.height))
        // Reducing by 2x or more: box-shrink by the whole part first, so that what is left is under 2x (at most four
        // taps, each weight at least 64 of 256). The focus, in fractions, holds for the shrunk image too.
        if 1 / scale >= 2 { return self.apply(BoxShrink.apply(image, factor: Int(total: 1 / scale)), to: size, focus: focus) }
        let (left, top, _) = self.window(source: PixelSize(width: image.width, height: image.height), size: size, focus: focus)
        let columns = ResampleTaps(sourceLength: image.width, outputLength: size.width, scale: scale, offset: left)
        let rows = ResampleTaps(sourceLength: image.height, outputLength: size.height, scale: scale, offset: top)
        let firstRow = rows.lowestIndex
        let rowCount = rows.highestIndex - firstRow + 1
        let stride = size.width * 3
        // One byte more than the rows: the last pixel's SIMD4 store writes a fourth byte past it.
        let horizontal = [UInt8](unsafeUninitializedCapacity: stride * rowCount + 1) { out, count in
            image.pixels.withUnsafeBufferPointer { source in
                columns.indices.withUnsafeBufferPointer { indices in
                    columns.weights.withUnsafeBufferPointer { weights in
                        guard let src = source.baseAddress, let dst = out.baseAddress, let ix = indices.baseAddress, let wt = weights.baseAddress
                        else { return }
                        let taps = columns.taps
                        for row in 0..<rowCount {
                            let s = src + (firstRow + row) * image.width * 3
                            let o = dst + row * stride
                            Self.horizontalRow(s, o, ix, wt, taps: taps, width: size.width, wide: firstRow + row < image.height - 1)
                        }
                    }
                }
            }
            count = stride * rowCount
        }
        return RGBImage(width: size.width, height: size.height) { out in
            horizontal.withUnsafeBufferPointer { source in
                guard let src = source.baseAddress, let dst = out.baseAddress else { return }
                // The source rows of an output row and their weights, refilled for each row (no allocation a row).
                var rowPointers = [UnsafePointer<UInt8>]()
                var rowWeights = [UInt16]()
                rowPointers.reserveCapacity(rows.taps)
                rowWeights.reserveCapacity(rows.taps)
                for y in 0..<size.height {
                    let base = y * rows.taps
                    rowPointers.removeAll(keepingCapacity: true)
                    rowWeights.removeAll(keepingCapacity: true)
                    for t in 0..<rows.taps where rows.weights[base + t] != 0 {
                        rowPointers.append(src + (Int(rows.indices[base + t]) - firstRow) * stride)
                        rowWeights.append(rows.weights[base + t])
                    }
                    Self.verticalRow(rowPointers, rowWeights, dst + y * stride, count: stride)
                }
            }
        }
    }

    /// One output row of the horizontal pass: each pixel the weighted sum of `taps` source pixels. With `wide`
    /// (the source row is not the image's last, so a fourth byte past any pixel is still in the buffer) a pixel's three
    /// bytes are the lanes of a SIMD4, the fourth (the next pixel's red) computed, stored and overwritten by the next
    /// pixel (the output has a byte to spare after its last row); else byte by byte.
    @inline(__always)
    static func horizontalRow(
        _ s: UnsafePointer<UInt8>,
        _ o: UnsafeMutablePointer<UInt8>,
        _ ix: UnsafePointer<Int32>,
        _ wt: UnsafePointer<UInt16>,
        taps: Int,
        width: Int,
        wide: Bool
    ) {
        guard wide else {
            for x in 0..<width {
                var r = ResampleTaps.half
                var g = ResampleTaps.half
                var b = ResampleTaps.half
                for t in 0..<taps {
                    let w = wt[x * taps + t]
                    let p = s + Int(ix[x * taps + t]) * 3
                    r &+= w &* UInt16(p[0])
                    g &+= w &* UInt16(p[1])
                    b &+= w &* UInt16(p[2])
                }
                o[3 * x] = UInt8(truncatingIfNeeded: r &>> ResampleTaps.shift)
                o[3 * x + 1] = UInt8(truncatingIfNeeded: g &>> ResampleTaps.shift)
                o[3 * x + 2] = UInt8(truncatingIfNeeded: b &>> ResampleTaps.shift)
            }
            return
        }
        @inline(__always) func load(_ index: Int32) -> SIMD4<UInt16> {
            SIMD4<UInt16>(truncatingIfNeeded: UnsafeRawPointer(s + Int(index) * 3).loadUnaligned(as: SIMD4<UInt8>.self))
        }
        let bias = SIMD4<UInt16>(repeating: ResampleTaps.half)
        for x in 0..<width {
            var v = bias
            if taps == 2 {
                v &+= load(ix[2 * x]) &* wt[2 * x] &+ load(ix[2 * x + 1]) &* wt[2 * x + 1]
            } else {
                for t in 0..<taps { v &+= load(ix[x * taps + t]) &* wt[x * taps + t] }
            }
            UnsafeMutableRawPointer(o + 3 * x).storeBytes(
                of: SIMD4<UInt8>(truncatingIfNeeded: v &>> ResampleTaps.shift),
                as: SIMD4<UInt8>.self
            )
        }
    }

    /// One output row of the vertical pass. Weights are non-negative and sum to 256, so every sum fits 16 bits.
    @inline(__always)
    static func verticalRow(_ rows: [UnsafePointer<UInt8>], _ weights: [UInt16], _ out: UnsafeMutablePointer<UInt8>, count: Int) {
        let (half, shift) = (ResampleTaps.half, ResampleTaps.shift)
        switch rows.count {
        case 1:
            out.update(from: rows[0], count: count)
        case 2:
            let (a, b, wa, wb) = (rows[0], rows[1], weights[0], weights[1])
            for i in 0..<count { out[i] = UInt8(truncatingIfNeeded: (half &+ wa &* UInt16(a[i]) &+ wb &* UInt16(b[i])) &>> shift) }
        case 3:
            let (a, b, c, wa, wb, wc) = (rows[0], rows[1], rows[2], weights[0], weights[1], weights[2])
            for i in 0..<count {
                out[i] = UInt8(truncatingIfNeeded: (half &+ wa &* UInt16(a[i]) &+ wb &* UInt16(b[i]) &+ wc &* UInt16(c[i])) &>> shift)
            }
        default:
            var acc = [UInt16](repeating: half, count: count)
            acc.withUnsafeMutableBufferPointer { acc in
                for (row, w) in zip(rows, weights) { for i in 0..<count { acc[i] &+= w &* UInt16(row[i]) } }
                for i in 0..<count { out[i] = UInt8(truncatingIfNeeded: acc[i] &>> shift) }
            }
        }
    }
}

/// Source indices and 8-bit fixed-point weights for each output sample along one axis: non-negative and summing to
/// exactly 256, so a weighted sum of bytes plus ``half`` fits 16 bits and needs no clamping after the ``shift``. Meant
/// for enlarging or reducing by under 2x (at most four taps): the rounding then moves the largest weight by at most 2.
struct ResampleTaps {
    static let shift: UInt16 = 8
    static let half: UInt16 = 128
    let taps: Int
    let indices: [Int32]
    let weights: [UInt16]
    let lowestIndex: Int
    let highestIndex: Int

    init(sourceLength: Int, outputLength: Int, scale: Double, offset: Double) {
        let support = max(1.0, 1.0 / scale)
        // Source pixel j has weight > 0 only when |j + 0.5 - centre| < support: at most ceil(2 * support) of them.
        let taps = max(1, Int(total: (2 * support).rounded(.up)))
        var indices = [Int32](repeating: 0, count: outputLength * taps)
        var weights = [UInt16](repeating: 0, count: outputLength * taps)
        var lowest = sourceLength
        var highest = 0
        var raw = [Double](repeating: 0, count: taps)
        for i in 0..<outputLength {
            let centre = offset + (Double(i) + 0.5) / scale
            let first = Int(total: (centre - support - 0.5).rounded(.down)) + 1
            var total = 0.0
            for t in 0..<taps {
                let distance = abs(Double(first + t) + 0.5 - centre)
                raw[t] = max(0, 1 - distance / support)
                total += raw[t]
            }
            var fixedTotal = 0
            var largest = 0
            for t in 0..<taps {
                let index = min(max(first + t, 0), sourceLength - 1)
                let weight = total > 0 ? Int(total: (raw[t] / total * 256).rounded()) : (t == 0 ? 256 : 0)
                indices[i * taps + t] = Int32(index)
                weights[i * taps + t] = UInt16(weight)
                fixedTotal += weight
                if weight > weights[i * taps + largest] { largest = t }
                if weight != 0 {
                    lowest = min(lowest, index)
                    highest = max(highest, index)
                }
            }
            weights[i * taps + largest] = UInt16(Int(weights[i * taps + largest]) + 256 - fixedTotal)  // sum exactly 1.0
            lowest = min(lowest, Int(indices[i * taps + largest]))
            highest = max(highest, Int(indices[i * taps + largest]))
        }
        self.taps = taps
        self.indices = indices
        self.weights = weights
        self.lowestIndex = lowest
        self.highestIndex = highest
    }
}
