/// Mixes the sharp photo and its light-effect copy: out = (1 - p) * sharp + p * effect.
package enum Blend {
    /// `hundredths` is p * 100 (blur is quantised to 0.01).
    package static func mix(sharp: RGBImage, effect: RGBImage, hundredths: Int) -> RGBImage {
        precondition(sharp.width == effect.width && sharp.height == effect.height, "blend needs images of one size")
        if hundredths <= 0 { return sharp }
        if hundredths >= 100 { return effect }
        let weight = UInt32(self.weight(hundredths: hundredths))
        let keep = 65536 - weight
        return sharp.pixels.withUnsafeBufferPointer { a in
            effect.pixels.withUnsafeBufferPointer { b in
                RGBImage(width: sharp.width, height: sharp.height) { out in
                    for i in 0..<out.count {
                        out[i] = UInt8(truncatingIfNeeded: (UInt32(a[i]) &* keep &+ UInt32(b[i]) &* weight &+ 32768) >> 16)
                    }
                }
            }
        }
    }

    /// The effect's share in 16-bit fixed point (0...65536).
    static func weight(hundredths: Int) -> Int {
        (min(max(hundredths, 0), 100) * 65536 + 50) / 100
    }
}
