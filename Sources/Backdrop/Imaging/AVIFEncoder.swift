import CAVIF
import NIOCore

/// AVIF through libavif, one thread, 8-bit 4:2:0: libaom at the service's settings, other encoders and settings for
/// the bench's study of them (`backdrop-bench --avif-study`).
package enum AVIFEncoder {
    /// What can be chosen beside the quantizer and speed: the AV1 encoder, tiling, and codec-specific options.
    package struct Tuning: Sendable, Equatable {
        package enum Codec: Int32, Sendable, CaseIterable {
            case aom = 0
            case rav1e = 1
            case svt = 2
        }

        package var codec: Codec = .aom
        package var tileRowsLog2 = 0
        package var tileColumnsLog2 = 0
        /// libavif's codec-specific options, "key=value" pairs separated by spaces (for libaom, `aomenc`'s long names).
        package var options = ""

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

        package init(convert: Duration = .zero, encode: Duration = .zero) {
            self.convert = convert
            self.encode = encode
        }
    }

    /// `quantizer` 0 (best) to 63; `speed` 0 (slowest) to 10.
    package static func encode(_ image: RGBImage, quantizer: Int, speed: Int, tuning: Tuning = .init()) throws -> ByteBuffer {
        var timing = Timing()
        return try self.encode(image, quantizer: quantizer, speed: speed, tuning: tuning, timing: &timing)
    }

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
        var settings = bd_avif_settings()
        settings.quantizer = Int32(quantizer)
        settings.speed = Int32(speed)
        settings.codec = tuning.codec.rawValue
        settings.tile_rows_log2 = Int32(tuning.tileRowsLog2)
        settings.tile_cols_log2 = Int32(tuning.tileColumnsLog2)
        let status = tuning.options.withCString { options in
            settings.options = tuning.options.isEmpty ? nil : options
            return image.pixels.withUnsafeBufferPointer { pixels in
                bd_avif_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), &settings, &bytes, &length, &message, message.count)
            }
        }
        timing = Timing(convert: .nanoseconds(settings.convert_ns), encode: .nanoseconds(settings.encode_ns))
        return try EncodedBytes.take(status: status, bytes: bytes, length: length, message: message, free: bd_avif_free)
    }
}
