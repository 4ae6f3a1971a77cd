/// How much of a photo's interest each class of screen's cover crop keeps (``ScreenShape``), measured on its look
/// thumbnail (``CandidateLooks``, about 100 px): the interest is ``Attention``'s (edges, skin, saturation on a 32 x 32
/// grid), and the crop is placed where the render places it, on the interest. A 3:2 photo keeps 37.5 % of its area on
/// a 9:16 phone; it keeps more of its interest when that lies in one part of it (a tower in a wide sky), less when the
/// interest spreads from edge to edge (a skyline). The ranking reads it in place of the raw aspect
/// (``PhotoRanking/fit(_:)``); a photo with no thumbnail read is judged by its area kept.
struct CropInterest: Sendable, Hashable, Codable {
    /// The share of the interest kept on a phone, a square and a desktop, 0 to 1 in thousandths.
    let portrait: Double
    let square: Double
    let landscape: Double

    init(portrait: Double, square: Double, landscape: Double) {
        self.portrait = portrait
        self.square = square
        self.landscape = landscape
    }

    /// The shares `image` (the photo or a copy of it at any size) keeps.
    init(_ image: RGBImage) {
        let attention = Attention(image)
        let source = PixelSize(width: max(image.width, 1), height: max(image.height, 1))
        func share(_ shape: ScreenShape) -> Double { Self.kept(attention, source: source, screen: shape.reference) }
        self.init(portrait: share(.portrait), square: share(.square), landscape: share(.landscape))
    }

    /// The share kept on a screen of `shape`.
    func kept(_ shape: ScreenShape) -> Double {
        switch shape {
        case .portrait: self.portrait
        case .square: self.square
        case .landscape: self.landscape
        }
    }

    /// The share of `attention`'s interest (each grid cell's score, none below 0) inside the cover crop of a `source`
    /// photo to `screen`, centred on the interest as ``PreparedImages`` centres it, rounded to thousandths so that every
    /// process stores the same number; the area's share when the photo has no interest at all.
    static func kept(_ attention: Attention, source: PixelSize, screen: PixelSize) -> Double {
        let (left, top, scale) = CoverCrop.window(source: source, size: screen, focus: attention.focus(coverOf: source, to: screen))
        let (cropWidth, cropHeight) = (Double(screen.width) / scale, Double(screen.height) / scale)
        let n = Attention.grid
        // The crop's edges in grid cells, and how much of each column and row of cells lies inside it.
        func overlaps(_ start: Double, _ length: Double, _ total: Double) -> [Double] {
            let (from, to) = (start / total * Double(n), (start + length) / total * Double(n))
            return (0..<n).map { max(0, min(Double($0 + 1), to) - max(Double($0), from)) }
        }
        let columns = overlaps(left, cropWidth, Double(source.width))
        let rows = overlaps(top, cropHeight, Double(source.height))
        var (inside, total) = (0.0, 0.0)
        for row in 0..<n {
            for column in 0..<n {
                let score = max(0, attention.scores[row * n + column])
                inside += score * columns[column] * rows[row]
                total += score
            }
        }
        let share = total > 0 ? inside / total : cropWidth * cropHeight / (Double(source.width) * Double(source.height))
        return (min(max(share, 0), 1) * 1000).rounded() / 1000
    }
}
