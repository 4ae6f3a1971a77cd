import Backdrop

/// How clients show a ``BlurredPreview``: the small image stretched to the display size by bilinear interpolation.
/// The service does not upscale anything itself; this is the reference its tests and `make bench` measure against.
package enum BilinearUpscale {
    /// `image` stretched to `size` by bilinear interpolation with pixel centres aligned, as a browser or `UIImageView`
    /// scales a small image up to fill a larger box.
    package static func apply(_ image: RGBImage, to size: PixelSize) -> RGBImage {
        func taps(_ out: Int, _ source: Int) -> [(Int, Int, Double)] {
            (0..<out).map { i in
                let position = min(max((Double(i) + 0.5) * Double(source) / Double(out) - 0.5, 0), Double(source - 1))
                let low = Int(position.rounded(.down))
                return (low, min(low + 1, source - 1), position - Double(low))
            }
        }
        let xs = taps(size.width, image.width)
        let ys = taps(size.height, image.height)
        return RGBImage(width: size.width, height: size.height) { out in
            for (y, (y0, y1, fy)) in ys.enumerated() {
                for (x, (x0, x1, fx)) in xs.enumerated() {
                    for channel in 0..<3 {
                        func at(_ px: Int, _ py: Int) -> Double { Double(image.pixels[(py * image.width + px) * 3 + channel]) }
                        let top = at(x0, y0) * (1 - fx) + at(x1, y0) * fx
                        let bottom = at(x0, y1) * (1 - fx) + at(x1, y1) * fx
                        out[(y * size.width + x) * 3 + channel] = UInt8((top * (1 - fy) + bottom * fy).rounded())
                    }
                }
            }
        }
    }
}
