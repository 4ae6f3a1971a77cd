/// Cover-fits an image to a size and crops the centre, in one separable resampling pass.
///
/// The filter is a triangle whose support widens with the shrink factor (area-style averaging), so shrinking
/// does not alias, and it is plain bilinear interpolation when enlarging.
package enum CoverCrop {
    package static func apply(_ image: RGBImage, to size: PixelSize) -> RGBImage {
        if image.width == size.width && image.height == size.height { return image }
        let scale = max(Double(size.width) / Double(image.width), Double(size.height) / Double(image.height))
        let left = (Double(image.width) - Double(size.width) / scale) / 2
        let top = (Double(image.height) - Double(size.height) / scale) / 2
        let columns = ResampleTaps(sourceLength: image.width, outputLength: size.width, scale: scale, offset: left)
        let rows = ResampleTaps(sourceLength: image.height, outputLength: size.height, scale: scale, offset: top)
        let firstRow = rows.lowestIndex
        let rowCount = rows.highestIndex - firstRow + 1

        // Horizontal pass over only the source rows the vertical pass reads.
        let stride = size.width * 3
        var horizontal = [UInt8](repeating: 0, count: stride * rowCount)
        image.pixels.withUnsafeBufferPointer { source in
            horizontal.withUnsafeMutableBufferPointer { out in
                columns.indices.withUnsafeBufferPointer { indices in
                    columns.weights.withUnsafeBufferPointer { weights in
                        let taps = columns.taps
                        for row in 0..<rowCount {
                            let sourceRow = (firstRow + row) * image.width * 3
                            let outRow = row * stride
                            for x in 0..<size.width {
                                var r: Int32 = 1 << 13
                                var g: Int32 = 1 << 13
                                var b: Int32 = 1 << 13
                                for t in 0..<taps {
                                    let w = weights[x * taps + t]
                                    let s = sourceRow + Int(indices[x * taps + t]) * 3
                                    r &+= w &* Int32(source[s])
                                    g &+= w &* Int32(source[s + 1])
                                    b &+= w &* Int32(source[s + 2])
                                }
                                out[outRow + x * 3] = clampByte(r >> 14)
                                out[outRow + x * 3 + 1] = clampByte(g >> 14)
                                out[outRow + x * 3 + 2] = clampByte(b >> 14)
                            }
                        }
                    }
                }
            }
        }

        // Vertical pass, a whole row at a time.
        return RGBImage(width: size.width, height: size.height) { out in
            var accumulator = [Int32](repeating: 0, count: stride)
            let taps = rows.taps
            horizontal.withUnsafeBufferPointer { source in
                accumulator.withUnsafeMutableBufferPointer { acc in
                    for y in 0..<size.height {
                        for i in 0..<stride { acc[i] = 1 << 13 }
                        for t in 0..<taps {
                            let w = rows.weights[y * taps + t]
                            if w == 0 { continue }
                            let row = UnsafeBufferPointer(rebasing: source[((Int(rows.indices[y * taps + t]) - firstRow) * stride)...])
                            for i in 0..<stride { acc[i] &+= w &* Int32(row[i]) }
                        }
                        let o = y * stride
                        for i in 0..<stride { out[o + i] = clampByte(acc[i] >> 14) }
                    }
                }
            }
        }
    }
}

@inline(__always)
func clampByte(_ value: Int32) -> UInt8 {
    UInt8(truncatingIfNeeded: min(max(value, 0), 255))
}

/// Source indices and 14-bit fixed-point weights for each output sample along one axis.
struct ResampleTaps {
    let taps: Int
    let indices: [Int32]
    let weights: [Int32]
    let lowestIndex: Int
    let highestIndex: Int

    init(sourceLength: Int, outputLength: Int, scale: Double, offset: Double) {
        let support = max(1.0, 1.0 / scale)
        // Source pixel j has weight > 0 only when |j + 0.5 - centre| < support: at most ceil(2 * support) of them.
        let taps = max(1, Int((2 * support).rounded(.up)))
        var indices = [Int32](repeating: 0, count: outputLength * taps)
        var weights = [Int32](repeating: 0, count: outputLength * taps)
        var lowest = sourceLength
        var highest = 0
        var raw = [Double](repeating: 0, count: taps)
        for i in 0..<outputLength {
            let centre = offset + (Double(i) + 0.5) / scale
            let first = Int((centre - support - 0.5).rounded(.down)) + 1
            var total = 0.0
            for t in 0..<taps {
                let distance = abs(Double(first + t) + 0.5 - centre)
                raw[t] = max(0, 1 - distance / support)
                total += raw[t]
            }
            var fixedTotal: Int32 = 0
            var largest = 0
            for t in 0..<taps {
                let index = min(max(first + t, 0), sourceLength - 1)
                let weight = total > 0 ? Int32((raw[t] / total * 16384).rounded()) : (t == 0 ? 16384 : 0)
                indices[i * taps + t] = Int32(index)
                weights[i * taps + t] = weight
                fixedTotal += weight
                if weight > weights[i * taps + largest] { largest = t }
                if weight != 0 {
                    lowest = min(lowest, index)
                    highest = max(highest, index)
                }
            }
            weights[i * taps + largest] += 16384 - fixedTotal  // weights sum to exactly 1.0
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
