/// How much fine detail a picture has: the mean absolute difference between neighbouring pixels' luma (horizontal and
/// vertical), on every `stride`th row. A smooth sky is near 1, a sharp mountain range 10 or more; the lossy encoders'
/// error at a given quality grows with it, so it predicts the quality a fidelity floor needs (``FittedQuality``).
package enum ImageDetail {
    package static func measure(_ image: RGBImage, stride: Int = 4) -> Double {
        guard image.width > 1, image.height > 1 else { return 0 }
        let width = image.width
        var total = 0
        var count = 0
        image.pixels.withUnsafeBufferPointer { pixels in
            func luma(_ index: Int) -> Int { Int(pixels[index]) + 2 * Int(pixels[index + 1]) + Int(pixels[index + 2]) }
            var y = 0
            while y < image.height - 1 {
                let row = y * width * 3
                let below = row + width * 3
                for x in 0..<(width - 1) {
                    let here = luma(row + x * 3)
                    total += abs(luma(row + x * 3 + 3) - here) + abs(luma(below + x * 3) - here)
                }
                count += (width - 1) * 2
                y += stride
            }
        }
        return Double(total) / Double(max(count, 1)) / 4
    }
}
