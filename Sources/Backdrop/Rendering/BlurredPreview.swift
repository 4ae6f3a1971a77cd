import Foundation
import NIOCore

/// The light-effect layer of a render in about a kilobyte: the full-size effect image reduced to samples spaced a
/// fixed share of the blur radius apart, fitted for the client's bilinear upscale (``BilinearFit``), as lossless
/// WebP. Scaled back up to the display size with bilinear interpolation (an `<img>` or `UIImageView` filling the
/// screen) it is within 50 dB of the full-size `blur=1` render, for every style from 320x568 to 2048x1536 (see
/// `PreviewTests`, and `make bench` on the anchor photos).
package struct BlurredPreview: Sendable {
    /// The photo the layer shows.
    package let photo: SourcePhoto
    package let webp: [UInt8]
    package let size: PixelSize
    /// ThumbHash, BlurHash and mean colour of the same pixels.
    package let placeholders: Placeholders
    /// What text reads over the sharp and the blurred layer.
    package let legibility: Legibility
    /// Where the photo's interest lies in the render, as fractions of its sides.
    package let focus: Focus
    /// Faces found in the photo (``PhotoContent``).
    package let faces: Int

    /// `data:image/webp;base64,...`
    package var dataURI: String { "data:image/webp;base64," + Data(self.webp).base64EncodedString() }

    /// Sample spacing as a share of the style's blur radius, measured (`PreviewTests`, and `make bench` on the anchor
    /// photos): at 0.45 of its radius `light` kept 53 dB or more and `none` (no tint to flatten it) 51 dB, but `none`
    /// took 2,062 bytes for an anchor photo at 2048x1536; 0.47 keeps both under 2 kB. `dark` and `extralight` blur
    /// less (20 pt against 30), but their strong tint flattens the picture: at 0.45 they kept 56 dB and more yet took
    /// up to 2.7 kB, so they are sampled more sparsely.
    static func spacing(for style: EffectStyle) -> Double {
        switch style {
        case .light, .none: 0.47
        case .extralight, .dark: 0.65
        }
    }

    /// At most this many pixels: lossless WebP takes about a byte a pixel for these layers, and the largest displays
    /// of the most colourful anchor photos went past 2 kB at the spacing alone.
    static let maxPixels = 1_800

    /// The distance between the preview's samples, in pixels of a layer of `size` in `style`.
    static func sampleSpacing(for size: PixelSize, style: EffectStyle) -> Double {
        max(self.spacing(for: style) * style.radius(outputHeight: size.height), (Double(size.pixelCount) / Double(self.maxPixels)).squareRoot())
    }

    /// The preview's size for a layer of `size` with samples `spacing` pixels apart: at least 2 x 2 unless the layer
    /// itself is smaller.
    static func size(for size: PixelSize, spacing: Double) -> PixelSize {
        func side(_ length: Int) -> Int { min(length, max(2, Int(total: (Double(length) / spacing).rounded(.up)))) }
        return PixelSize(width: side(size.width), height: side(size.height))
    }

    /// The small image for `effect` with samples `spacing` pixels apart, before encoding: fitted to come back closest
    /// after a bilinear upscale, reading the layer every sixth of a spacing.
    static func fitted(_ effect: RGBImage, spacing: Double) -> RGBImage {
        let layer = PixelSize(width: effect.width, height: effect.height)
        return BilinearFit.apply(effect, to: self.size(for: layer, spacing: spacing), step: Int(total: spacing / 6))
    }

    /// At most this many bytes of WebP: a layer too colourful for its spacing is sampled more sparsely until it fits
    /// (rare: the most colourful anchor photos at 2048x1536; one more encode).
    static let maxBytes = 2_048

    /// The preview of `prepared`'s effect layer, with the legibility of both its layers and its focus.
    package static func make(photo: SourcePhoto, prepared: PreparedImages, style: EffectStyle) throws -> BlurredPreview {
        let effect = prepared.effect
        return try self.make(
            photo: photo,
            effect: effect,
            style: style,
            legibility: Legibility(sharp: prepared.sharp, blurred: effect),
            focus: prepared.focus,
            faces: prepared.measures?.content.faces ?? 0
        )
    }

    /// Shrinks `effect` (the full-size light-effect layer) and encodes it. libwebp's lossless method 1 at effort 25
    /// made the smallest files here in about 0.3 ms (method 6 at effort 100: 3 % larger or smaller, 25 to 65 ms).
    package static func make(
        photo: SourcePhoto,
        effect: RGBImage,
        style: EffectStyle,
        legibility: Legibility,
        focus: Focus,
        faces: Int = 0
    ) throws -> BlurredPreview {
        var spacing = self.sampleSpacing(for: PixelSize(width: effect.width, height: effect.height), style: style)
        while true {
            let small = self.fitted(effect, spacing: spacing)
            let webp = Array(buffer: try WebPEncoder.encode(small, quality: 25, method: 1, lossless: true))
            if webp.count <= self.maxBytes || small.width * small.height <= 16 {
                return BlurredPreview(
                    photo: photo,
                    webp: webp,
                    size: PixelSize(width: small.width, height: small.height),
                    placeholders: Placeholders.make(from: small),
                    legibility: legibility,
                    focus: focus,
                    faces: faces
                )
            }
            // Bytes follow the pixel count: widen the spacing by the square root of the excess, and a little more.
            spacing *= max(1.05, (Double(webp.count) / Double(self.maxBytes)).squareRoot() * 1.03)
        }
    }
}
