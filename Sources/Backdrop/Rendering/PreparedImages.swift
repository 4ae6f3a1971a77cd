import NIOCore
import Tracing

/// A photo cover-cropped to an output size, and its light-effect copy: everything a render needs but the blend.
/// The copy is made when a render first needs it (see ``LazyEffect``).
package struct PreparedImages: Sendable {
    package let sharp: RGBImage
    /// Where the photo's interest lies in `sharp` (``Attention``), whichever way it was cropped.
    let focus: Focus
    /// The photo's measures (``PhotoQuality``: its light, sharpness, skin and faces), nil when it was not measured.
    let measures: PhotoQuality?
    private let lazyEffect: LazyEffect

    /// The effect copy in `style`, made on first use.
    package init(sharp: RGBImage, style: EffectStyle, focus: Focus = .centre, measures: PhotoQuality? = nil) {
        self.sharp = sharp
        self.focus = focus
        self.measures = measures
        self.lazyEffect = LazyEffect(sharp: sharp, style: style)
    }

    /// The effect copy at full size (enlarged on each use; the PNG writer enlarges it row by row instead).
    package var effect: RGBImage { self.lazyEffect.effect.enlarged() }

    /// Both images, counted before the effect copy exists so that the memory cache's accounting holds.
    package var byteCount: Int { self.sharp.byteCount + self.lazyEffect.byteCount }

    /// Decodes, finds where the photo's interest lies and cover-crops (around it, or at the centre with `.centre`); the
    /// effect follows when a render needs it. Every photo is measured (``PhotoQuality``, its faces counted) unless its
    /// `measured` are known (a photo is measured once, whatever the sizes it is rendered at); with `gate`, one that
    /// fails the quality gate for that expectation throws ``PhotoRejected`` before it is cropped.
    static func make(
        from encoded: EncodedImage,
        size: PixelSize,
        style: EffectStyle,
        crop: CropMode = .attention,
        limits: DecodeLimits,
        gate: PhotoQuality.Expectation? = nil,
        measured: PhotoQuality? = nil,
        trace: ServiceContext? = nil
    ) throws -> PreparedImages {
        let covering = PixelSize(width: max(size.width, Self.judgedSide), height: max(size.height, Self.judgedSide))
        let decoded = try traced("image.decode", parent: trace) { try ImageDecoder.decode(encoded.bytes, covering: covering, limits: limits) }
        let quality = measured ?? traced("image.gate", parent: trace) { PhotoQuality(decoded) }
        if let gate {
            let verdict = quality.verdict(for: gate)
            guard verdict == .pass else { throw PhotoRejected(verdict: verdict, measures: quality) }
        }
        return traced("image.crop", parent: trace) {
            let source = PixelSize(width: decoded.width, height: decoded.height)
            let interest = Attention(decoded).focus(coverOf: source, to: size)
            let centre = crop == .attention ? interest : .centre
            let sharp = CoverCrop.apply(decoded, to: size, focus: centre)
            let focus = CoverCrop.place(interest, source: source, size: size, cropFocus: centre)
            return PreparedImages(sharp: sharp, style: style, focus: focus, measures: quality)
        }
    }

    /// The least a photo is decoded to on each side, however small the render: what the gate judges (faces of 24 px
    /// and more on its reduced copy) must not depend on the size asked for.
    static let judgedSide = 256

    /// The final picture at `hundredths` of the effect.
    package func blended(hundredths: Int) -> RGBImage {
        Blend.mix(sharp: self.sharp, effect: self.effect, hundredths: hundredths)
    }

    /// The final picture at `hundredths` of the effect, encoded as `format`.
    package func encoded(hundredths: Int, format: OutputFormat, settings: EncoderSettings) throws -> ByteBuffer {
        try self.answer(hundredths: hundredths, format: format, settings: settings).bytes
    }

    /// The final picture at `hundredths` of the effect, encoded as `format`, with how a lossy answer met its floor
    /// (nil for PNG).
    func answer(hundredths: Int, format: OutputFormat, settings: EncoderSettings) throws -> (bytes: ByteBuffer, fitted: FittedQuality.Encoded?) {
        guard format != .png else { return (try self.png(hundredths: hundredths, compressor: settings.pngEncoder), nil) }
        let fitted = try FittedQuality.encode(
            self.picture(hundredths: hundredths),
            blend: Double(hundredths) / 100,  // ImageDetail keeps it within 0...1
            format: format,
            floor: settings.floor(hundredths: hundredths),
            minimum: settings.minimumQuality(format, hundredths: hundredths),
            settings: settings
        )
        return (fitted.bytes, fitted)
    }

    /// The final picture: one of the two images as it is at either end, blended between them.
    package func picture(hundredths: Int) -> RGBImage {
        switch hundredths {
        case ...0: self.sharp
        case 100...: self.effect
        default: self.blended(hundredths: hundredths)
        }
    }

    /// The final picture at `hundredths` of the effect, as PNG (blended, and the effect enlarged, while encoding).
    package func png(hundredths: Int, compressor: PNGCompressor = .scanline) throws -> ByteBuffer {
        if hundredths <= 0 { return try PNGEncoder.encode(self.sharp, compressor: compressor) }
        return try PNGEncoder.encode(self.sharp, blendingWith: self.lazyEffect.effect, hundredths: hundredths, compressor: compressor)
    }
}
