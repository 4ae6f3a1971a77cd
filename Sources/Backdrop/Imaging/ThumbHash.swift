import Foundation

/// ThumbHash, Evan Wallace's placeholder format (evanw/thumbhash, MIT): an image's average colour, aspect ratio and
/// a few DCT coefficients of luminance and colour in about 25 bytes. This is a port of the reference JavaScript
/// encoder (`rgbaToThumbHash`) for opaque images, rounding as JavaScript's `Math.round` does, so it writes the same
/// bytes (checked against that encoder in `make test`). Input larger than 100 pixels on a side is first reduced by
/// averaging, as the reference asks.
enum ThumbHash {
    /// The reference encoder's largest side.
    static let maxSide = 100

    /// The hash of `image`, base64 (with padding) as the reference decoders' examples take it.
    static func base64(_ image: RGBImage) -> String {
        Data(self.encode(image)).base64EncodedString()
    }

    static func encode(_ source: RGBImage) -> [UInt8] {
        let image = AreaReduce.fit(source, within: self.maxSide)
        let (w, h) = (image.width, image.height)
        let count = w * h
        var l = [Double](repeating: 0, count: count), p = l, q = l
        image.pixels.withUnsafeBufferPointer { pixels in
            for i in 0..<count {
                let r = Double(pixels[3 * i]) / 255, g = Double(pixels[3 * i + 1]) / 255, b = Double(pixels[3 * i + 2]) / 255
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
        let header24 = jsRound(63 * lum.dc) | (jsRound(31.5 + 31.5 * yellowBlue.dc) << 6) | (jsRound(31.5 + 31.5 * redGreen.dc) << 12)
            | (jsRound(31 * lum.scale) << 18)
        let header16 = (isLandscape ? ly : lx) | (jsRound(63 * yellowBlue.scale) << 3) | (jsRound(63 * redGreen.scale) << 9)
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
        var dc = 0.0, ac = [Double](), scale = 0.0
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

    /// JavaScript's `Math.round`: halves go up.
    private static func jsRound(_ value: Double) -> Int { Int((value + 0.5).rounded(.down)) }
}

/// Reduces an image by averaging whole blocks of pixels, for encoders with a largest input.
enum AreaReduce {
    /// `image` itself when both sides are at most `side`, else the block averages of an image that fits.
    static func fit(_ image: RGBImage, within side: Int) -> RGBImage {
        guard image.width > side || image.height > side else { return image }
        let scale = Double(max(image.width, image.height)) / Double(side)
        let width = max(1, min(side, Int((Double(image.width) / scale).rounded()))),
            height = max(1, min(side, Int((Double(image.height) / scale).rounded())))
        return RGBImage(width: width, height: height) { out in
            for y in 0..<height {
                let y0 = y * image.height / height, y1 = max(y0 + 1, (y + 1) * image.height / height)
                for x in 0..<width {
                    let x0 = x * image.width / width, x1 = max(x0 + 1, (x + 1) * image.width / width)
                    var sum = (0, 0, 0)
                    for sy in y0..<y1 {
                        for sx in x0..<x1 {
                            let i = (sy * image.width + sx) * 3
                            sum.0 += Int(image.pixels[i])
                            sum.1 += Int(image.pixels[i + 1])
                            sum.2 += Int(image.pixels[i + 2])
                        }
                    }
                    let n = (y1 - y0) * (x1 - x0), o = (y * width + x) * 3
                    out[o] = UInt8((sum.0 + n / 2) / n)
                    out[o + 1] = UInt8((sum.1 + n / 2) / n)
                    out[o + 2] = UInt8((sum.2 + n / 2) / n)
                }
            }
        }
    }
}
