import Foundation

/// ThumbHash, Evan Wallace's placeholder format (evanw/thumbhash, MIT): an image's average colour, aspect ratio and
/// a few DCT coefficients of luminance and colour in about 25 bytes. This is a port of the reference JavaScript
/// encoder (`rgbaToThumbHash`) for opaque images, rounding as JavaScript's `Math.round` does, so it writes the same
/// bytes (checked against that encoder in `make test`). Input larger than 100 pixels on a side is first shrunk to fit,
/// as the reference asks.
enum ThumbHash {
    /// The reference encoder's largest side.
    static let maxSide = 100

    /// The hash of `image`, base64 (with padding) as the reference decoders' examples take it.
    static func base64(_ image: RGBImage) -> String {
        Data(self.encode(image)).base64EncodedString()
    }

    static func encode(_ source: RGBImage) -> [UInt8] {
        let image = self.fitted(source)
        let (w, h) = (image.width, image.height)
        let count = w * h
        var l = [Double](repeating: 0, count: count)
        var p = l
        var q = l
        image.pixels.withUnsafeBufferPointer { pixels in
            for i in 0..<count {
                let r = Double(pixels[3 * i]) / 255
                let g = Double(pixels[3 * i + 1]) / 255
                let b = Double(pixels[3 * i + 2]) / 255
                l[i] = (r + g + b) / 3
                p[i] = (r + g) / 2 - b
                q[i] = r - g
            }
        }
        let lx = max(1, jsRound(7 * Double(w) / Double(max(w, h))))
        let ly = max(1, jsRound(7 * Double(h) / Double(max(w, h))))
        let lum = self.channel(l, width: w, height: h, nx: max(3, lx), ny: max(3, ly))
        let yellowBlue = self.channel(p, width: w, height: h, nx: 3, ny: 3)
        let redGreen = self.channel(q, width: w, height: h, nx: 3, ny: 3)

        let isLandscape = w > h
        let header24 =
            jsRound(63 * lum.dc) | (jsRound(31.5 + 31.5 * yellowBlue.dc) << 6) | (jsRound(31.5 + 31.5 * redGreen.dc) << 12)
            | (jsRound(31 * lum.scale) << 18)
        let header16 =
            (isLandscape ? ly : lx) | (jsRound(63 * yellowBlue.scale) << 3) | (jsRound(63 * redGreen.scale) << 9)
            | ((isLandscape ? 1 : 0) << 15)
        var hash: [UInt8] = [
            UInt8(header24 & 255), UInt8((header24 >> 8) & 255), UInt8(header24 >> 16), UInt8(header16 & 255), UInt8(header16 >> 8),
        ]
        var index = 0
        for f in lum.ac + yellowBlue.ac + redGreen.ac {
            let nibble = UInt8(jsRound(15 * f)) << UInt8((index & 1) << 2)
            if index & 1 == 0 { hash.append(nibble) } else { hash[hash.count - 1] |= nibble }
            index += 1
        }
        return hash
    }

    /// The DC term, the AC terms normalised to 0...1 and their scale, of one channel: coefficients (cx, cy) with
    /// cx * ny < nx * (ny - cy), in the reference's order.
    private static func channel(_ values: [Double], width w: Int, height h: Int, nx: Int, ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
        var dc = 0.0
        var ac = [Double]()
        var scale = 0.0
        var fx = [Double](repeating: 0, count: w)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                var f = 0.0
                for y in 0..<h {
                    let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<w { f += values[x + y * w] * fx[x] * fy }
                }
                f /= Double(w * h)
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
        return (dc, ac, scale)
    }

    /// `image` itself when both sides are at most ``maxSide``, else shrunk to fit by ``CoverCrop``'s averaging (the
    /// size keeps the aspect ratio to the pixel, so nothing is cropped but a fraction of one).
    static func fitted(_ image: RGBImage) -> RGBImage {
        guard image.width > self.maxSide || image.height > self.maxSide else { return image }
        let scale = Double(max(image.width, image.height)) / Double(self.maxSide)
        func side(_ length: Int) -> Int { max(1, min(self.maxSide, Int(total: (Double(length) / scale).rounded()))) }
        return CoverCrop.apply(image, to: PixelSize(width: side(image.width), height: side(image.height)))
    }

    /// JavaScript's `Math.round`: halves go up.
    private static func jsRound(_ value: Double) -> Int { Int(total: (value + 0.5).rounded(.down)) }
}
