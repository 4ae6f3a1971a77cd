/// How each output format is encoded. The lossy formats' quality is chosen per picture (``FittedQuality``) as the
/// lowest that keeps the answer within its fidelity floor: `sharpFloor` dB PSNR against the lossless render up to blur
/// 0.5, rising linearly to `blurredFloor` at blur 1 (heavily blurred renders are smooth gradients, where a small error
/// shows as flat blocks or bands).
package struct EncoderSettings: Sendable, Equatable {
    /// What compresses PNG rows.
    var pngEncoder: PNGCompressor
    /// The lossy formats' floor at blur 0, in dB PSNR against the lossless render.
    package var sharpFloor: Double
    /// Their floor at blur 1.
    package var blurredFloor: Double
    /// libwebp effort, 0 (fastest) to 6.
    package var webpMethod: Int
    /// libaom speed, 0 (slowest) to 10.
    package var avifSpeed: Int

    package init(
        pngEncoder: PNGCompressor = .scanline,
        sharpFloor: Double = 36,
        blurredFloor: Double = 45,
        webpMethod: Int = 0,
        avifSpeed: Int = 10
    ) {
        self.pngEncoder = pngEncoder
        self.sharpFloor = sharpFloor
        self.blurredFloor = blurredFloor
        self.webpMethod = webpMethod
        self.avifSpeed = avifSpeed
    }

    /// The floor, in dB, for a render at `hundredths` of the effect: the sharp floor up to blur 0.5, where the photo's
    /// own texture still hides the encoders' blocks, then rising linearly to the blurred floor at blur 1.
    package func floor(hundredths: Int) -> Double {
        let share = Double(min(max(hundredths - 50, 0), 50)) / 50
        return self.sharpFloor + (max(self.blurredFloor, self.sharpFloor) - self.sharpFloor) * share
    }

    /// The least quality `format` is encoded at for a render at `hundredths` of the effect, whatever its floor: AVIF
    /// past blur 0.5 rises from 60 to 80 at blur 1. PSNR does not see what the eye does there: libaom's coarser
    /// quantizers leave large flat blocks in a blurred render's smooth gradients (plain with the contrast raised) at
    /// 45 dB and more, and quality 80 removes them, for about 1.3 kB a render. JPEG and WebP show fine noise there, no
    /// blocks, and have no such bound.
    package func minimumQuality(_ format: OutputFormat, hundredths: Int) -> Int {
        guard format == .avif, hundredths > 50 else { return 0 }
        return 60 + (20 * (min(hundredths, 100) - 50) + 25) / 50
    }
}
