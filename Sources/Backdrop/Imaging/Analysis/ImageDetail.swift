import CPixels

/// What predicts a lossy encoder's error on a picture (``QualityModel``), measured on every `stride`th row (every
/// fourth measures what every row does to 0.01 on the bench's and the stock photos, at a quarter of the work):
/// - `luma`: the mean absolute difference between neighbouring pixels' luma (horizontal and vertical); a smooth sky is
///   near 1, a sharp mountain range 10 or more;
/// - `chroma`: the same of the colour differences R - G and B - G, which 4:2:0 halves whatever the quality;
/// - `busy`: the share of 8x8 blocks whose luma varies (a standard deviation over 10 of 255): where the quantizer
///   leaves its error. A picture of one busy half and one flat half has its error in the busy half, which the mean
///   difference alone spreads over both.
/// - `blend`: how much of the light effect the picture is (0 sharp, 1 the effect alone), which the render knows: a
///   blurred render's gradients lose more to the quantizer than their detail says, which the three measures alone
///   over-predicted by 0.4 dB at blur 1.
/// Together they predict an encode's dB to 0.55-0.75 dB (each photo left out of the fit), the luma alone to 0.85-1.0.
package struct ImageDetail: Sendable, Equatable {
    package let luma: Double
    package let chroma: Double
    package let busy: Double
    package let blend: Double

    package init(luma: Double, chroma: Double, busy: Double, blend: Double = 0) {
        self.luma = luma
        self.chroma = chroma
        self.busy = busy
        self.blend = min(max(blend, 0), 1)
    }

    /// `image`'s detail; `blend` is the fraction of the light effect it was made with.
    package static func measure(_ image: RGBImage, blend: Double = 0, stride: Int = 4) -> ImageDetail {
        var sums = bd_detail_sums()
        image.pixels.withUnsafeBufferPointer { pixels in
            bd_detail(pixels.baseAddress, image.width, image.height, max(stride, 1), &sums)
        }
        guard sums.differences > 0 else { return ImageDetail(luma: 0, chroma: 0, busy: 0, blend: blend) }
        let differences = Double(sums.differences)
        return ImageDetail(
            luma: Double(sums.luma) / differences / 4,
            chroma: Double(sums.chroma) / differences / 2,
            busy: sums.blocks == 0 ? 0 : Double(sums.busy) / Double(sums.blocks),
            blend: blend
        )
    }
}
