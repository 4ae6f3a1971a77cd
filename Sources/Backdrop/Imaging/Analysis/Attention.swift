import Foundation

/// Where a photo's interest lies, found as libvips' `attention` smartcrop finds it (libvips 8.14, from smartcrop.js):
/// the photo reduced to a 32 x 32 grid, each cell scored by its edges (a Laplacian of luminance), its likeness to skin
/// and its saturation (CIELAB a*), the scores blurred at a radius that follows the crop's size, and the crop centred
/// on the highest. Computed once per photo prepared, at the grid's resolution (well under a millisecond); checked
/// against libvips itself by `Tests/legibility/check_legibility.py`.
package struct Attention: Sendable {
    static let grid = 32
    /// Interest per grid cell, rows top to bottom, before the blur.
    let scores: [Double]

    package init(_ image: RGBImage) {
        let means = Self.cellMeans(image)
        let n = Self.grid
        var x = [Double](repeating: 0, count: n * n)
        var y = x
        var z = x
        for cell in 0..<(n * n) {
            // libvips reduces the 8-bit photo to an 8-bit grid, then converts to XYZ (0 to 100).
            let (r, g, b) = (
                SRGB.linear[Int(total: means[3 * cell])], SRGB.linear[Int(total: means[3 * cell + 1])], SRGB.linear[Int(total: means[3 * cell + 2])]
            )
            (x[cell], y[cell], z[cell]) = SRGB.xyz(r, g, b)
        }
        var scores = [Double](repeating: 0, count: n * n)
        for row in 0..<n {
            for column in 0..<n {
                let cell = row * n + column
                func at(_ r: Int, _ c: Int) -> Double { y[min(max(r, 0), n - 1) * n + min(max(c, 0), n - 1)] }
                let edge = abs(5 * (4 * y[cell] - at(row - 1, column) - at(row + 1, column) - at(row, column - 1) - at(row, column + 1)))
                guard y[cell] > 5 else {
                    scores[cell] = edge  // dark cells score by their edges alone
                    continue
                }
                let skin = 100 * SkinTone.likeness(x: x[cell], y: y[cell], z: z[cell])
                let a = 500 * (Self.labF(x[cell] / 95.047) - Self.labF(y[cell] / 100))
                scores[cell] = edge + skin + a
            }
        }
        self.scores = scores
    }

    /// The point of interest for a crop `width` by `height` (fractions of the photo's sides), as fractions of the
    /// photo's sides: the top-left corner of the best cell, as libvips reports it.
    package func focus(cropWidth width: Double, cropHeight height: Double) -> Focus {
        let n = Double(Self.grid)
        let sigma = max(((width * n) * (width * n) + (height * n) * (height * n)).squareRoot() / 10, 1)
        let blurred = Self.blur(self.scores, sigma: sigma)
        var best = 0
        for cell in blurred.indices where blurred[cell] > blurred[best] { best = cell }
        return Focus(x: Double(best % Self.grid) / n, y: Double(best / Self.grid) / n)
    }

    /// The point of interest for the cover crop of a `source`-sized photo to `size` (``CoverCrop``), as fractions of
    /// the photo's sides.
    package func focus(coverOf source: PixelSize, to size: PixelSize) -> Focus {
        let scale = CoverCrop.window(source: source, size: size).scale
        return self.focus(
            cropWidth: Double(size.width) / scale / Double(source.width),
            cropHeight: Double(size.height) / scale / Double(source.height)
        )
    }

    /// Red, green and blue of each grid cell, as libvips' `resize` makes them (its default kernel and gap): the photo
    /// box-averaged by the whole part of half the reduction, then reduced the rest of the way with a Lanczos-3
    /// filter.
    static func cellMeans(_ image: RGBImage) -> [Double] {
        let n = self.grid
        let (columnFactor, rowFactor) = (Double(image.width) / Double(n), Double(image.height) / Double(n))
        let (boxWidth, boxHeight) = (max(1, Int(total: columnFactor / 2)), max(1, Int(total: rowFactor / 2)))
        let (columns, rows) = ((image.width + boxWidth - 1) / boxWidth, (image.height + boxHeight - 1) / boxHeight)
        var sums = [Double](repeating: 0, count: columns * rows * 3)
        var counts = [Double](repeating: 0, count: columns * rows)
        // Each box row's pixels summed down first, byte by byte (a loop the compiler vectorises), then across.
        var columnSums = [UInt32](repeating: 0, count: image.width * 3)
        image.pixels.withUnsafeBufferPointer { pixels in
            columnSums.withUnsafeMutableBufferPointer { down in
                guard let source = pixels.baseAddress, let column = down.baseAddress else { return }
                let stride = image.width * 3
                for gridRow in 0..<rows {
                    let (top, bottom) = (gridRow * boxHeight, min((gridRow + 1) * boxHeight, image.height))
                    column.update(repeating: 0, count: stride)
                    for row in top..<bottom {
                        let line = source + row * stride
                        for i in 0..<stride { column[i] &+= UInt32(line[i]) }
                    }
                    for cell in 0..<columns {
                        let (first, last) = (cell * boxWidth, min((cell + 1) * boxWidth, image.width))
                        var (r, g, b): (UInt32, UInt32, UInt32) = (0, 0, 0)
                        for x in first..<last {
                            r &+= column[3 * x]
                            g &+= column[3 * x + 1]
                            b &+= column[3 * x + 2]
                        }
                        let i = gridRow * columns + cell
                        (sums[3 * i], sums[3 * i + 1], sums[3 * i + 2]) = (Double(r), Double(g), Double(b))
                        counts[i] = Double((last - first) * (bottom - top))
                    }
                }
            }
        }
        // Each step to whole 8-bit values, as libvips keeps them; down first, then across, as it reduces.
        func bytes(_ values: [Double]) -> [Double] { values.map { min(255, max(0, $0.rounded())) } }
        let boxed = bytes(sums.indices.map { counts[$0 / 3] > 0 ? sums[$0] / counts[$0 / 3] : 0 })
        let down = bytes(self.reduce(boxed, width: columns, height: rows, factor: rowFactor / Double(boxHeight), horizontal: false))
        return bytes(self.reduce(down, width: columns, height: n, factor: columnFactor / Double(boxWidth), horizontal: true))
    }

    /// A Lanczos-3 reduction of an RGB grid to ``grid`` along one axis by `factor` (samples centred, edges copied); a
    /// factor under 1 (a photo smaller than the grid) enlarges with the same filter.
    static func reduce(_ values: [Double], width: Int, height: Int, factor: Double, horizontal: Bool) -> [Double] {
        let n = self.grid
        let length = horizontal ? width : height
        let (outWidth, outHeight) = horizontal ? (n, height) : (width, n)
        let stretch = max(factor, 1)
        var output = [Double](repeating: 0, count: outWidth * outHeight * 3)
        for i in 0..<n {
            let centre = (Double(i) + 0.5) * factor - 0.5
            let first = Int(total: (centre - 3 * stretch).rounded(.up))
            let last = Int(total: (centre + 3 * stretch).rounded(.down))
            var taps = [(index: Int, weight: Double)]()
            for j in first...max(first, last) {
                let weight = self.lanczos3((Double(j) - centre) / stretch)
                if weight != 0 { taps.append((min(max(j, 0), length - 1), weight)) }
            }
            let total = taps.reduce(0) { $0 + $1.weight }
            for other in 0..<(horizontal ? height : width) {
                let out = horizontal ? other * outWidth + i : i * outWidth + other
                for channel in 0..<3 {
                    var sum = 0.0
                    for tap in taps {
                        let source = horizontal ? other * width + tap.index : tap.index * width + other
                        sum += tap.weight * values[3 * source + channel]
                    }
                    output[3 * out + channel] = sum / total
                }
            }
        }
        return output
    }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }

    /// libvips' `gaussblur` at its default precision: a separable mask of `rint(20 exp(-x²/2σ²))`, cut where the
    /// curve falls under 0.2, edges extended by copying.
    static func blur(_ values: [Double], sigma: Double) -> [Double] {
        let n = self.grid
        let twoSigmaSquared = 2 * sigma * sigma
        var reach = 0
        while Double(reach) < 8 * sigma && exp(-Double(reach * reach) / twoSigmaSquared) >= 0.2 { reach += 1 }
        let half = max(reach - 1, 0)
        let mask = (-half...half).map { (20 * exp(-Double($0 * $0) / twoSigmaSquared)).rounded(.toNearestOrEven) }
        let total = max(mask.reduce(0, +), 1)
        func pass(_ input: [Double], horizontal: Bool) -> [Double] {
            var output = input
            for row in 0..<n {
                for column in 0..<n {
                    var sum = 0.0
                    for (k, weight) in mask.enumerated() {
                        let offset = k - half
                        let r = horizontal ? row : min(max(row + offset, 0), n - 1)
                        let c = horizontal ? min(max(column + offset, 0), n - 1) : column
                        sum += weight * input[r * n + c]
                    }
                    output[row * n + column] = sum / total
                }
            }
            return output
        }
        return pass(pass(values, horizontal: true), horizontal: false)
    }

    static func labF(_ t: Double) -> Double {
        t > 0.008856 ? cbrt(t) : 7.787 * t + 16.0 / 116.0
    }
}

/// A point in an image, as fractions of its width and height from the top-left corner.
package struct Focus: Sendable, Hashable, Encodable {
    package let x: Double
    package let y: Double

    package init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    package static let centre = Focus(x: 0.5, y: 0.5)
}
