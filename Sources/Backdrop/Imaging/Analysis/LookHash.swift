/// A photo's look in 64 bits: a difference hash (dHash). The image's luma is averaged over a 9 x 8 grid of areas, and
/// each bit says whether an area is brighter than its right-hand neighbour. Copies of one picture (re-encoded, resized,
/// brightened a little, another size of it) differ in a few bits; two photos of different scenes in about half of them.
/// Kept in JSON as 16 hex digits, which every reader takes exactly (a number past 2^53 would not be).
struct LookHash: Sendable, Hashable, Codable {
    let bits: UInt64

    init(bits: UInt64) { self.bits = bits }

    /// The hash of `image`, whatever its size (a thumbnail is enough).
    init(_ image: RGBImage) {
        let (columns, rows) = (9, 8)
        var luma = [Int](repeating: 0, count: columns * rows)
        // Each area at least one pixel a side, within the image (a picture narrower than 9 px shares columns).
        for row in 0..<rows {
            let top = row * image.height / rows
            let bottom = max((row + 1) * image.height / rows, top + 1)
            for column in 0..<columns {
                let left = column * image.width / columns
                let right = max((column + 1) * image.width / columns, left + 1)
                var sum = 0
                for y in top..<bottom {
                    var index = (y * image.width + left) * 3
                    for _ in left..<right {
                        // Rec. 601 luma in integers: 299 R + 587 G + 114 B.
                        sum += 299 * Int(image.pixels[index]) + 587 * Int(image.pixels[index + 1]) + 114 * Int(image.pixels[index + 2])
                        index += 3
                    }
                }
                luma[row * columns + column] = sum / ((bottom - top) * (right - left))
            }
        }
        var bits: UInt64 = 0
        for row in 0..<rows {
            for column in 0..<(columns - 1) where luma[row * columns + column] > luma[row * columns + column + 1] {
                bits |= 1 << UInt64(row * (columns - 1) + column)
            }
        }
        self.bits = bits
    }

    /// At most this many bits apart: one scene (copies of one photo, or shots a moment apart from one spot).
    static let nearDuplicate = 8

    /// How many bits differ.
    func distance(to other: LookHash) -> Int { (self.bits ^ other.bits).nonzeroBitCount }

    func isNearDuplicate(of other: LookHash) -> Bool { self.distance(to: other) <= Self.nearDuplicate }

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard text.utf8.count == 16, let bits = UInt64(text, radix: 16) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a look hash is 16 hex digits"))
        }
        self.bits = bits
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        let hex = String(self.bits, radix: 16)
        try container.encode(String(repeating: "0", count: 16 - hex.utf8.count) + hex)
    }
}
