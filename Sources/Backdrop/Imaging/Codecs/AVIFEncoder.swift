import CAVIF
import NIOCore

/// AVIF through libavif: libaom in one thread, 8-bit 4:2:0. The bench's study compares other encoders and settings
/// (Benchmarks/BackdropLab).
package enum AVIFEncoder {
    /// `quantizer` 0 (best) to 63; `speed` 0 (slowest) to 10.
    package static func encode(_ image: RGBImage, quantizer: Int, speed: Int) throws -> ByteBuffer {
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            bd_avif_encode(
                pixels.baseAddress,
                Int32(image.width),
                Int32(image.height),
                Int32(quantizer),
                Int32(speed),
                &bytes,
                &length,
                &message,
                message.count
            )
        }
        return try EncodedBytes.take(status: status, bytes: bytes, length: length, message: message, free: bd_avif_free)
    }
}
