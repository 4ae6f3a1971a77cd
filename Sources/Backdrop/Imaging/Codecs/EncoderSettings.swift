/// How each output format is encoded. Defaults chosen by measurement on Backdrop's renders of its stock photos at
/// 640x1136 (see the format table in docs/api.md): every format stays above 45 dB PSNR at blur 1 and 36 dB at blur 0
/// against the lossless PNG, at a small fraction of its bytes.
package struct EncoderSettings: Sendable, Equatable {
    /// What compresses PNG rows.
    var pngEncoder: PNGCompressor
    /// libjpeg-turbo quality, 1-100 (optimised Huffman tables, 4:2:0).
    package var jpegQuality: Int
    /// libwebp lossy quality, 0-100.
    package var webpQuality: Int
    /// libwebp effort, 0 (fastest) to 6.
    package var webpMethod: Int
    /// AVIF quality, 0-100, mapped to libaom's quantizer as libavif 1.x maps its quality setting: for renders up to
    /// blur 0.5.
    package var avifQuality: Int
    /// AVIF quality at blur 1, reached linearly from `avifQuality` at blur 0.5. Heavily blurred renders are smooth
    /// gradients, where the sharp renders' quantizer leaves large flat blocks visible; they are also tiny, so the
    /// finer quantizer costs a kilobyte.
    package var avifBlurredQuality: Int
    /// libaom speed, 0 (slowest) to 10.
    package var avifSpeed: Int

    package init(
        pngEncoder: PNGCompressor = .scanline,
        jpegQuality: Int = 80,
        webpQuality: Int = 80,
        webpMethod: Int = 0,
        avifQuality: Int = 60,
        avifBlurredQuality: Int = 80,
        avifSpeed: Int = 10
    ) {
        self.pngEncoder = pngEncoder
        self.jpegQuality = jpegQuality
        self.webpQuality = webpQuality
        self.webpMethod = webpMethod
        self.avifQuality = avifQuality
        self.avifBlurredQuality = avifBlurredQuality
        self.avifSpeed = avifSpeed
    }

    /// The AVIF quality for a render at `hundredths` of the effect.
    func avifQuality(hundredths: Int) -> Int {
        let ramp = min(max(hundredths - 50, 0), 50)
        return self.avifQuality + ((self.avifBlurredQuality - self.avifQuality) * ramp + 25) / 50
    }

    /// libaom's quantizer (63 worst to 0 best) for a render at `hundredths` of the effect, mapped from the quality
    /// as libavif 1.x maps its quality setting.
    package func avifQuantizer(hundredths: Int) -> Int { ((100 - self.avifQuality(hundredths: hundredths)) * 63 + 50) / 100 }
}
