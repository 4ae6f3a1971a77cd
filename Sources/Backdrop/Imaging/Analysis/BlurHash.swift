import Foundation

/// BlurHash (woltapp/blurhash, MIT): an image as a few DCT components of its linear-light colour, in base 83. This
/// follows the reference C and TypeScript encoders step for step (sRGB to linear, components normalised by the
/// largest AC term, quantised with `floor(x + 0.5)`), so it writes the same string (checked against the Python
/// port of the reference in `make test`).
enum BlurHash {
    /// `image` with `x` components across and `y` down (1...9 each).
    static func encode(_ image: RGBImage, x componentsX: Int, y componentsY: Int) -> String {
        precondition((1...9).contains(componentsX) && (1...9).contains(componentsY), "BlurHash takes 1 to 9 components a side")
        let (w, h) = (image.width, image.height)
        let linear = image.pixels.map { SRGB.linear[Int($0)] }
        var components = [(Double, Double, Double)]()
        for j in 0..<componentsY {
            let fy = (0..<h).map { cos(Double.pi * Double(j) * Double($0) / Double(h)) }
            for i in 0..<componentsX {
                let fx = (0..<w).map { cos(Double.pi * Double(i) * Double($0) / Double(w)) }
                var sum = (0.0, 0.0, 0.0)
                for y in 0..<h {
                    for x in 0..<w {
                        let basis = fx[x] * fy[y]
                        let o = (y * w + x) * 3
                        sum.0 += basis * linear[o]
                        sum.1 += basis * linear[o + 1]
                        sum.2 += basis * linear[o + 2]
                    }
                }
                let scale = (i == 0 && j == 0 ? 1.0 : 2.0) / Double(w * h)
                components.append((sum.0 * scale, sum.1 * scale, sum.2 * scale))
            }
        }

        var hash = Self.base83(componentsX - 1 + (componentsY - 1) * 9, length: 1)
        let ac = components.dropFirst()
        let maximum: Double
        if ac.isEmpty {
            maximum = 1
            hash += Self.base83(0, length: 1)
        } else {
            let actual = ac.map { max(abs($0.0), abs($0.1), abs($0.2)) }.max() ?? 0
            let quantised = Int(total: max(0, min(82, (actual * 166 - 0.5).rounded(.down))))
            maximum = Double(quantised + 1) / 166
            hash += Self.base83(quantised, length: 1)
        }
        let dc = components[0]
        hash += Self.base83((Self.sRGB(dc.0) << 16) + (Self.sRGB(dc.1) << 8) + Self.sRGB(dc.2), length: 4)
        for (r, g, b) in ac {
            func quantise(_ value: Double) -> Int {
                Int(total: max(0, min(18, (Self.signedSquareRoot(value / maximum) * 9 + 9.5).rounded(.down))))
            }
            hash += Self.base83(quantise(r) * 19 * 19 + quantise(g) * 19 + quantise(b), length: 2)
        }
        return hash
    }

    /// 3 components across and 4 down, whatever the screen's shape: on the stock photos' blurred layers (6 places, 4
    /// styles, 3 sizes; `make test`'s placeholder check), 3x4 came closest for the same 28 characters, by 2.0 dB median on
    /// portrait screens (28.9 against 4x3's 26.9) and 0.5 dB on landscape ones (31.5 against 30.9): a photo changes
    /// more from sky to ground than from side to side. 4x4, 4x5 and 5x4 took 8 to 16 more characters and did no
    /// better at the median (one coarser quantisation step for every component).
    static let components = (x: 3, y: 4)

    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    private static func base83(_ value: Int, length: Int) -> String {
        var digits = [Character]()
        var rest = value
        for _ in 0..<length {
            digits.append(self.alphabet[rest % 83])
            rest /= 83
        }
        return String(digits.reversed())
    }

    private static func sRGB(_ linear: Double) -> Int {
        Int(total: SRGB.encoded(max(0, min(1, linear))) * 255 + 0.5)
    }

    private static func signedSquareRoot(_ value: Double) -> Double {
        value < 0 ? -(-value).squareRoot() : value.squareRoot()
    }
}
