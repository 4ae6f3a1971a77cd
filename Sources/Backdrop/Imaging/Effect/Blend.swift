import CPixels

/// Mixes the sharp photo and its light-effect copy: out = (1 - p) * sharp + p * effect, in 8-bit fixed point
/// (`bd_blend`, the one loop every encoder's blend runs).
package enum Blend {
    /// `hundredths` is p * 100 (blur is quantised to 0.01).
    package static func mix(sharp: RGBImage, effect: RGBImage, hundredths: Int) -> RGBImage {
        precondition(sharp.width == effect.width && sharp.height == effect.height, "blend needs images of one size")
        if hundredths <= 0 { return sharp }
        if hundredths >= 100 { return effect }
        return sharp.pixels.withUnsafeBufferPointer { a in
            effect.pixels.withUnsafeBufferPointer { b in
                RGBImage(width: sharp.width, height: sharp.height) { out in
                    guard let a = a.baseAddress, let b = b.baseAddress, let o = out.baseAddress else { return }
                    bd_blend(a, b, self.weight(hundredths: hundredths), out.count, o)
                }
            }
        }
    }

    /// The effect's share in `bd_blend`'s fixed point (0...256): 0.01 of blur is 2.56 steps, so every `hundredths`
    /// gives its own weight.
    static func weight(hundredths: Int) -> UInt32 {
        UInt32((min(max(hundredths, 0), 100) * Int(BD_BLEND_ONE) + 50) / 100)
    }
}
