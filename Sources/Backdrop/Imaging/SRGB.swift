import Foundation

/// sRGB as every measure here reads it: 8-bit values to linear light and back (IEC 61966-2-1, the WCAG 2 formula),
/// the luminance weights of its primaries (Rec. 709), and CIE XYZ. The attention crop, legibility, the skin likeness,
/// BlurHash, the light effect and the quality gate all take them from here.
enum SRGB {
    /// Linear light (0...1) of each 8-bit value.
    static let linear: [Double] = (0..<256).map { value in
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// Linear light back to sRGB's 0...1.
    static func encoded(_ linear: Double) -> Double {
        linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
    }

    /// Luminance from linear red, green and blue: Y of CIE XYZ.
    static let luminance = (red: 0.2126, green: 0.7152, blue: 0.0722)
    /// The same weights in 256ths, for a luminance of 8-bit values in integers (they sum to 256).
    static let luminance256 = (red: Int32(54), green: Int32(183), blue: Int32(19))

    /// CIE XYZ (0 to 100) of linear red, green and blue.
    static func xyz(_ r: Double, _ g: Double, _ b: Double) -> (x: Double, y: Double, z: Double) {
        (
            100 * (0.4124 * r + 0.3576 * g + 0.18056 * b),
            100 * (luminance.red * r + luminance.green * g + luminance.blue * b),
            100 * (0.0193 * r + 0.1192 * g + 0.9505 * b)
        )
    }
}
