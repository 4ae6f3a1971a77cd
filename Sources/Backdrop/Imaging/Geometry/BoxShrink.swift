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
        return RGBImage(width: width, height: height) { out in
            BlockSums.forEachRow(of: image, factor: factor, left: left, top: top, columns: width, rows: height) { row, sums in
                let base = row * width * 3
                for i in sums.indices { out[base + i] = UInt8((sums[i] + area / 2) / area) }
            }
        }
    }
}
