/// Shrinks an image by a whole factor: each output pixel the rounded mean of a `factor` x `factor` block; the rows and
/// columns left over by the whole blocks (fewer than `factor`) are dropped, half on each side, so the centre stays.
///
/// The cover-crop's first step when it reduces by 2x or more (as libvips shrinks before it reduces), so that its
/// resampler, whose 8-bit weights are fine for a few taps, never reduces by 2x or more itself.
package enum BoxShrink {
    package static func apply(_ image: RGBImage, factor: Int) -> RGBImage {
        let factor = max(1, min(factor, image.width, image.height))
        if factor == 1 { return image }
        let (width, height) = (image.width / factor, image.height / factor)
        let area = factor * factor
        let (left, top) = (image.width % factor / 2, image.height % factor / 2)
        var sums = [Int](repeating: 0, count: width * 3)
        return image.pixels.withUnsafeBufferPointer { source in
            sums.withUnsafeMutableBufferPointer { sums in
                RGBImage(width: width, height: height) { out in
                    for blockRow in 0..<height {
                        for i in sums.indices { sums[i] = 0 }
                        for y in (top + blockRow * factor)..<(top + (blockRow + 1) * factor) {
                            var p = (y * image.width + left) * 3
                            for block in 0..<width {
                                var (r, g, b) = (0, 0, 0)
                                for _ in 0..<factor {
                                    r += Int(source[p])
                                    g += Int(source[p + 1])
                                    b += Int(source[p + 2])
                                    p += 3
                                }
                                sums[3 * block] += r
                                sums[3 * block + 1] += g
                                sums[3 * block + 2] += b
                            }
                        }
                        let row = blockRow * width * 3
                        for i in sums.indices { out[row + i] = UInt8((sums[i] + area / 2) / area) }
                    }
                }
            }
        }
    }
}
