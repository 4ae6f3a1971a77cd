import CAVIF
import NIOCore

/// AVIF through libaom in one thread, 8-bit 4:2:0, at the settings libavif gives it and in the file libavif writes
/// (the tests hold them byte for byte), so that the encoder's own reconstruction, the picture every AV1 decoder shows,
/// can be had without decoding what was written. The bench's study compares other encoders and settings
/// (Benchmarks/BackdropLab).
package enum AVIFEncoder {
    /// `quantizer` 0 (best) to 63; `speed` 0 (slowest) to 10.
    package static func encode(_ image: RGBImage, quantizer: Int, speed: Int) throws -> ByteBuffer {
        try self.encode(image, quantizer: quantizer, speed: speed, shown: false).bytes
    }

    /// The file and, with `shown`, the picture as a client decodes it (as ``ReadBack`` would read the file back); nil
    /// when libaom could not give it.
    static func encode(_ image: RGBImage, quantizer: Int, speed: Int, shown: Bool) throws -> (bytes: ByteBuffer, shown: RGBImage?) {
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        func encode(showingIn target: UnsafeMutablePointer<UInt8>?) -> Int32 {
            image.pixels.withUnsafeBufferPointer { pixels in
                bd_avif_encode(
                    pixels.baseAddress,
                    Int32(image.width),
                    Int32(image.height),
                    Int32(quantizer),
                    Int32(speed),
                    target,
                    &bytes,
                    &length,
                    &message,
                    message.count
                )
            }
        }
        var status: Int32 = 0
        var seen: RGBImage?
        if shown {
            seen = RGBImage(width: image.width, height: image.height) { pixels in
                status = encode(showingIn: pixels.baseAddress)
                if status != 0 { pixels.initialize(repeating: 0) }  // not shown
            }
        } else {
            status = encode(showingIn: nil)
        }
        // 1: the file without the picture shown, which is then read back from it.
        let encoded = try EncodedBytes.take(status: status == 1 ? 0 : status, bytes: bytes, length: length, message: message, free: bd_avif_free)
        return (encoded, status == 0 ? seen : nil)
    }
}
