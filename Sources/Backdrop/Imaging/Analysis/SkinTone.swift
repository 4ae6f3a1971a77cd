/// How like skin a colour is, as libvips' attention crop (from smartcrop.js) judges it: the direction of its CIE XYZ
/// vector against skin's (0.78, 0.57, 0.44), 1 the same direction, less the further away. One measure for the crop
/// (``Attention``) and the gate's skin guard (``PhotoQuality``).
enum SkinTone {
    /// Likeness from which a pixel counts as skin for the guard: smartcrop.js's own threshold. A face's pixels are 0.82
    /// at the median (the tests' astronaut), and so are sand, dry grass and a pink sky.
    static let threshold = 0.8

    /// The likeness of X, Y, Z (0 to 100): 1 less the distance between the two unit vectors.
    static func likeness(x: Double, y: Double, z: Double) -> Double {
        let length = (x * x + y * y + z * z).squareRoot()
        guard length > 0 else { return 0 }
        let (dx, dy, dz) = (x / length - 0.78, y / length - 0.57, z / length - 0.44)
        return 1 - (dx * dx + dy * dy + dz * dz).squareRoot()
    }

    /// X, Y, Z (0 to 100) of an 8-bit sRGB colour.
    static func xyz(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> (x: Double, y: Double, z: Double) {
        SRGB.xyz(SRGB.linear[Int(red)], SRGB.linear[Int(green)], SRGB.linear[Int(blue)])
    }
}
