import Foundation
import NIOCore

/// The quality a lossy answer (JPEG, WebP, AVIF) is encoded at: the lowest that keeps it within its fidelity floor
/// (``FidelityFloor``, dB PSNR against the lossless render), so that a smooth sky is not paid at a mountain's quality
/// nor a mountain cut to a sky's. The quality is predicted from the picture's detail (``QualityModel``), the answer
/// measured as its clients will decode it (read back, or for AVIF the encoder's own reconstruction, the same pixels),
/// and encoded once more only when it fell short, at the quality predicted once the first encode's error is taken off.
package enum FittedQuality {
    /// An answer, the quality it was encoded at and its fidelity.
    package struct Encoded: Sendable {
        package let bytes: ByteBuffer
        package let quality: Int
        /// Its dB against the lossless render; nil when it was not read back (its quality clears the floor by more than
        /// the fit ever fell short, ``QualityModel/clears(_:quality:detail:)``) or could not be.
        package let decibels: Double?
        /// Encodes it took: 1, or 2 when the predicted quality fell short.
        package let encodes: Int
        /// How it met its floor, for the metrics: `first` (read back, met), `second` (met at the second encode), `short`
        /// (the second still under it: sent, and counted), `clear` (not read back: its quality clears the floor),
        /// `unread` (the read-back failed: sent as encoded, and counted).
        package let outcome: String
    }

    /// `picture` (made with `blend` of the light effect) as `format` within `floor` dB of itself, at `minimum` quality or
    /// more (`model` in place of the format's fitted one, for tests). The
    /// second encode, when there is one, is the answer whatever it measures (no third); the bench counts any short.
    package static func encode(
        _ picture: RGBImage,
        blend: Double,
        format: OutputFormat,
        floor: Double,
        minimum: Int = 0,
        settings: EncoderSettings,
        model: QualityModel? = nil
    ) throws -> Encoded {
        let model = model ?? QualityModel.of(format)
        let detail = ImageDetail.measure(picture, blend: blend)
        let first = max(minimum, model.quality(detail: detail, floor: floor, margin: model.margin))
        let checked = !model.clears(floor, quality: first, detail: detail)
        let encoded = try self.encode(picture, format: format, quality: first, settings: settings, shown: checked)
        guard checked else {
            return Encoded(bytes: encoded.bytes, quality: first, decibels: nil, encodes: 1, outcome: "clear")
        }
        // A read-back that fails (it never has) leaves the answer as encoded, counted, rather than failing the render.
        guard let decibels = try? self.fidelity(of: encoded, format: format, against: picture) else {
            return Encoded(bytes: encoded.bytes, quality: first, decibels: nil, encodes: 1, outcome: "unread")
        }
        guard decibels < floor, first < model.qualities.upperBound else {
            let outcome = decibels >= floor ? "first" : "short"
            return Encoded(bytes: encoded.bytes, quality: first, decibels: decibels, encodes: 1, outcome: outcome)
        }
        // The prediction was off by this much for this picture; the second quality is predicted with it corrected.
        let offset = model.decibels(quality: first, detail: detail) - decibels
        let second = max(first + 1, model.quality(detail: detail, floor: floor, margin: model.retryMargin, offset: offset))
        let again = try self.encode(picture, format: format, quality: second, settings: settings, shown: true)
        let measured = try? self.fidelity(of: again, format: format, against: picture)
        let outcome = measured.map { $0 >= floor ? "second" : "short" } ?? "unread"
        return Encoded(bytes: again.bytes, quality: second, decibels: measured, encodes: 2, outcome: outcome)
    }

    /// `picture` as `format` at `quality` (0-100 for each; AVIF's maps to libaom's quantizer as libavif 1.x maps it).
    package static func encode(_ picture: RGBImage, format: OutputFormat, quality: Int, settings: EncoderSettings) throws -> ByteBuffer {
        try self.encode(picture, format: format, quality: quality, settings: settings, shown: false).bytes
    }

    /// `picture` as `format` at `quality` and, with `shown`, the picture its decoders show when the encoder can give it
    /// (AVIF: libaom's reconstruction, which is what every AV1 decoder outputs).
    private static func encode(
        _ picture: RGBImage,
        format: OutputFormat,
        quality: Int,
        settings: EncoderSettings,
        shown: Bool
    ) throws -> (bytes: ByteBuffer, shown: RGBImage?) {
        switch format {
        case .png: (try PNGEncoder.encode(picture, compressor: settings.pngEncoder), nil)
        case .jpeg: (try JPEGEncoder.encode(picture, quality: max(1, quality)), nil)
        case .webp: (try WebPEncoder.encode(picture, quality: quality, method: settings.webpMethod), nil)
        case .avif: try AVIFEncoder.encode(picture, quantizer: Self.avifQuantizer(quality), speed: settings.avifSpeed, shown: shown)
        }
    }

    /// dB PSNR of an answer against `picture`: from the picture its encoder showed when it did, else read back from its
    /// bytes (the same pixels; the tests hold them equal).
    private static func fidelity(of encoded: (bytes: ByteBuffer, shown: RGBImage?), format: OutputFormat, against picture: RGBImage) throws -> Double
    {
        guard let shown = encoded.shown else { return try ReadBack.fidelity(of: encoded.bytes, format: format, against: picture) }
        return shown.psnr(against: picture)
    }

    /// libaom's quantizer (63 worst to 0 best) for an AVIF `quality`, as libavif 1.x maps its quality setting.
    package static func avifQuantizer(_ quality: Int) -> Int { ((100 - min(max(quality, 0), 100)) * 63 + 50) / 100 }

}
