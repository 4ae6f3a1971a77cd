/// Sums of each channel over `factor` x `factor` blocks of an image, one block row at a time, with no division per
/// pixel: what ``BoxShrink`` and the light effect's reduced copy both average from.
enum BlockSums {
    /// Calls `body` with each block row's index and its sums (R, G, B per block, `columns` blocks; one buffer, reused):
    /// the blocks laid from (`left`, `top`), a block that runs past the image's right or bottom edge summing the pixels
    /// inside it. `left + columns * factor` must reach at most one block past the right edge, and likewise for rows.
    static func forEachRow(
        of image: RGBImage,
        factor: Int,
        left: Int = 0,
        top: Int = 0,
        columns: Int,
        rows: Int,
        _ body: (_ row: Int, _ sums: UnsafeBufferPointer<Int>) -> Void
    ) {
        var sums = [Int](repeating: 0, count: columns * 3)
        image.pixels.withUnsafeBufferPointer { source in
            sums.withUnsafeMutableBufferPointer { sums in
                for row in 0..<rows {
                    for i in sums.indices { sums[i] = 0 }
                    for y in (top + row * factor)..<min(top + (row + 1) * factor, image.height) {
                        var p = (y * image.width + left) * 3
                        for column in 0..<columns {
                            // One block's row in 32 bits (a row of bytes fits), the block in 64.
                            var (r, g, b): (UInt32, UInt32, UInt32) = (0, 0, 0)
                            for _ in (left + column * factor)..<min(left + (column + 1) * factor, image.width) {
                                r &+= UInt32(source[p])
                                g &+= UInt32(source[p + 1])
                                b &+= UInt32(source[p + 2])
                                p += 3
                            }
                            sums[3 * column] += Int(r)
                            sums[3 * column + 1] += Int(g)
                            sums[3 * column + 2] += Int(b)
                        }
                    }
                    body(row, UnsafeBufferPointer(sums))
                }
            }
        }
    }
}
