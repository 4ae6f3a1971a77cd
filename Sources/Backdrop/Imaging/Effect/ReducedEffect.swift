import CPixels

/// The light effect at the size its blur was computed (1/factor of the output, in floats), with what enlarging it
/// bilinearly between block centres needs. A prepared photo keeps this instead of the enlarged copy: about 90 kB
/// instead of 2.2 MB at 640x1136, so twice the places fit the prepared-images budget. Enlarging is one C loop
/// (`bd_enlarge_row`) used both to make the whole image and, row by row, inside the PNG writer's blend.
package struct ReducedEffect: Sendable {
    package let full: PixelSize
    private let reducedWidth: Int
    /// The reduced image, then per output column the fraction towards the right sample, then per output row the
    /// fraction towards the row below.
    private let floats: [Float]
    /// Per output column the left and right samples' offsets within a reduced row, then per output row the reduced
    /// rows above and below.
    private let indices: [UInt32]

    init(values: [Float], reduced: PixelSize, full: PixelSize, factor: Int) {
        self.full = full
        self.reducedWidth = reduced.width
        let xs = Self.interpolation(fullLength: full.width, reducedLength: reduced.width, factor: factor)
        let ys = Self.interpolation(fullLength: full.height, reducedLength: reduced.height, factor: factor)
        self.floats = values + xs.map(\.1) + ys.map(\.1)
        let left = xs.map { UInt32($0.0 * 3) }
        let right = xs.map { UInt32(min($0.0 + 1, reduced.width - 1) * 3) }
        let above = ys.map { UInt32($0.0) }
        let below = ys.map { UInt32(min($0.0 + 1, reduced.height - 1)) }
        self.indices = left + right + above + below
    }

    /// Bytes held, for the prepared-images budget.
    package var byteCount: Int { self.floats.count * 4 + self.indices.count * 4 }

    /// The bytes a reduced effect of an image of `size` holds, known before it is made.
    package static func byteCount(size: PixelSize, style: EffectStyle) -> Int {
        let reduced = LightEffect.reduction(of: size, style: style).size
        return (reduced.width * reduced.height * 3 + size.width + size.height) * 4 + (size.width + size.height) * 2 * 4
    }

    /// The effect at full size.
    package func enlarged() -> RGBImage {
        self.withRows { rows in
            RGBImage(width: self.full.width, height: self.full.height) { out in
                guard let o = out.baseAddress else { return }
                let rowLength = self.full.width * 3
                for y in 0..<self.full.height { bd_enlarge_row(rows, y, o + y * rowLength) }
            }
        }
    }

    /// Calls `body` with an enlarger of this effect (rows to be asked for top to bottom), valid only within it.
    package func withRows<Result>(_ body: (UnsafeMutablePointer<bd_enlarger>) throws -> Result) rethrows -> Result {
        let (width, height, reducedCount) = (self.full.width, self.full.height, self.floats.count - self.full.width - self.full.height)
        var scratch = [Float](repeating: 0, count: width * 3 * 2)
        return try self.floats.withUnsafeBufferPointer { floats in
            try self.indices.withUnsafeBufferPointer { indices in
                try scratch.withUnsafeMutableBufferPointer { scratch in
                    guard let f = floats.baseAddress, let i = indices.baseAddress, let s = scratch.baseAddress else {
                        preconditionFailure("an effect has pixels")
                    }
                    var enlarger = bd_enlarger(
                        values: f,
                        reduced_width: self.reducedWidth,
                        full_width: width,
                        left: i,
                        right: i + width,
                        fx: f + reducedCount,
                        row_above: i + 2 * width,
                        row_below: i + 2 * width + height,
                        fy: f + reducedCount + width,
                        upper: s,
                        lower: s + width * 3,
                        upper_row: -1,
                        lower_row: -1
                    )
                    return try withUnsafeMutablePointer(to: &enlarger) { try body($0) }
                }
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
