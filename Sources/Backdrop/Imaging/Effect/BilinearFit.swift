/// The small image that, stretched to a larger image's size by bilinear interpolation (``BilinearUpscale``, as a
/// browser or `UIImageView` shows it), comes closest to that image in the least-squares sense.
///
/// Averaging each block (a box filter) and letting the client interpolate blurs twice: peaks and troughs come back
/// lower than they were. Fitting instead solves, per axis, the normal equations of the interpolation (a tridiagonal
/// system the size of the small image), so the values between samples land where the layer is. The layer is read on
/// a regular grid of `step` pixels (enough for a blurred layer, whose detail is many pixels wide), which keeps the fit
/// of a 2048x1536 layer under a millisecond.
enum BilinearFit {
    /// One axis: where the sampled full-size positions fall between the small image's samples, and the normal
    /// equations' tridiagonal matrix, factorised once for every right-hand side.
    struct Axis {
        let samples: [(position: Int, low: Int, high: Int, weight: Float)]
        let length: Int
        private let upper: [Float]
        private let pivots: [Float]
        private let off: [Float]

        init(fullLength: Int, length: Int, step: Int) {
            var samples = [(position: Int, low: Int, high: Int, weight: Float)]()
            var diagonal = [Float](repeating: 1e-6, count: length)
            var off = [Float](repeating: 0, count: max(length - 1, 0))
            for position in stride(from: step / 2, to: fullLength, by: step) {
                let at = min(max((Double(position) + 0.5) * Double(length) / Double(fullLength) - 0.5, 0), Double(length - 1))
                let low = Int(total: at.rounded(.down))
                let high = min(low + 1, length - 1)
                let weight = Float(at - Double(low))  // of `high`
                samples.append((position, low, high, weight))
                if low == high {
                    diagonal[low] += 1
                } else {
                    diagonal[low] += (1 - weight) * (1 - weight)
                    diagonal[high] += weight * weight
                    off[low] += (1 - weight) * weight
                }
            }
            // Thomas algorithm, factorisation part.
            var upper = [Float](repeating: 0, count: length)
            var pivots = [Float](repeating: 0, count: length)
            for i in 0..<length {
                let lower = i > 0 ? off[i - 1] : 0
                pivots[i] = diagonal[i] - (i > 0 ? lower * upper[i - 1] : 0)
                upper[i] = i < length - 1 ? off[i] / pivots[i] : 0
            }
            self.samples = samples
            self.length = length
            self.upper = upper
            self.pivots = pivots
            self.off = off
        }

        /// Solves the normal equations in place for `values[start + k * spacing]`, k in 0..<length.
        func solve(_ values: inout [Float], start: Int, spacing: Int) {
            var previous: Float = 0
            for i in 0..<self.length {
                let lower = i > 0 ? self.off[i - 1] : 0
                let value = (values[start + i * spacing] - lower * previous) / self.pivots[i]
                values[start + i * spacing] = value
                previous = value
            }
            if self.length < 2 { return }
            for i in stride(from: self.length - 2, through: 0, by: -1) {
                values[start + i * spacing] -= self.upper[i] * values[start + (i + 1) * spacing]
            }
        }
    }

    package static func apply(_ image: RGBImage, to size: PixelSize, step: Int) -> RGBImage {
        precondition(size.width <= image.width && size.height <= image.height, "BilinearFit only shrinks")
        let columns = Axis(fullLength: image.width, length: size.width, step: max(1, step))
        let rows = Axis(fullLength: image.height, length: size.height, step: max(1, step))
        // Right-hand sides: the layer projected onto the interpolation's weights, rows then columns.
        var projected = [Float](repeating: 0, count: size.width * size.height * 3)
        var row = [Float](repeating: 0, count: size.width * 3)
        image.pixels.withUnsafeBufferPointer { source in
            for sample in rows.samples {
                for i in row.indices { row[i] = 0 }
                let base = sample.position * image.width * 3
                for column in columns.samples {
                    let s = base + column.position * 3
                    for channel in 0..<3 {
                        let value = Float(source[s + channel])
                        row[column.low * 3 + channel] += (1 - column.weight) * value
                        row[column.high * 3 + channel] += column.weight * value
                    }
                }
                let low = sample.low * size.width * 3
                let high = sample.high * size.width * 3
                for i in row.indices {
                    projected[low + i] += (1 - sample.weight) * row[i]
                    projected[high + i] += sample.weight * row[i]
                }
            }
        }
        // Solve along the columns (each small column, each channel), then along the rows.
        for start in 0..<(size.width * 3) { rows.solve(&projected, start: start, spacing: size.width * 3) }
        for y in 0..<size.height {
            for channel in 0..<3 { columns.solve(&projected, start: y * size.width * 3 + channel, spacing: 3) }
        }
        return RGBImage(width: size.width, height: size.height) { out in
            for i in 0..<out.count { out[i] = UInt8(total: min(max(projected[i].rounded(), 0), 255)) }
        }
    }
}
