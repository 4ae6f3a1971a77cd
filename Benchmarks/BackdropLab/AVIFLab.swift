import Backdrop
import CImagingLab
import NIOCore

/// AVIF with what the bench's study varies beside the quantizer and speed: the AV1 encoder, tiling and codec-specific
/// options, with the CPU time of each stage. The service encodes with libaom at its defaults (``AVIFEncoder``).
package enum AVIFLab {
    package struct Tuning: Sendable, Equatable {
        package enum Codec: Int32, Sendable, CaseIterable {
            case aom = 0
            case rav1e = 1
            case svt = 2
        }

        package var codec: Codec
        package var tileRowsLog2: Int
        package var tileColumnsLog2: Int
        /// libavif's codec-specific options, "key=value" pairs separated by spaces (for libaom, `aomenc`'s long names).
        package var options: String

        package init(codec: Codec = .aom, tileRowsLog2: Int = 0, tileColumnsLog2: Int = 0, options: String = "") {
            self.codec = codec
            self.tileRowsLog2 = tileRowsLog2
            self.tileColumnsLog2 = tileColumnsLog2
            self.options = options
        }
    }

    /// Thread CPU time of an encode's two stages.
    package struct Timing: Sendable {
        package var convert: Duration = .zero
        package var encode: Duration = .zero

        package init() {}
    }

    /// `quantizer` 0 (best) to 63; `speed` 0 (slowest) to 10.
    package static func encode(
        _ image: RGBImage,
        quantizer: Int,
        speed: Int,
        tuning: Tuning,
        timing: inout Timing
    ) throws -> ByteBuffer {
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        var settings = bd_lab_avif_settings()
        settings.quantizer = Int32(quantizer)
        settings.speed = Int32(speed)
        settings.codec = tuning.codec.rawValue
        settings.tile_rows_log2 = Int32(tuning.tileRowsLog2)
        settings.tile_cols_log2 = Int32(tuning.tileColumnsLog2)
        let status = tuning.options.withCString { options in
            settings.options = tuning.options.isEmpty ? nil : options
            return image.pixels.withUnsafeBufferPointer { pixels in
                bd_lab_avif_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), &settings, &bytes, &length, &message, message.count)
            }
        }
        timing.convert = .nanoseconds(settings.convert_ns)
        timing.encode = .nanoseconds(settings.encode_ns)
        return try EncodedBytes.take(status: status, bytes: bytes, length: length, message: message) { bd_lab_free($0) }
    }
}
