import CWebP
import NIOCore

/// WebP through libwebp, one thread: lossy (4:2:0) or lossless.
enum WebPEncoder {
    package static func encode(_ image: RGBImage, quality: Int, method: Int, lossless: Bool = false) throws -> ByteBuffer {
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            bd_webp_encode(
                pixels.baseAddress,
                Int32(image.width),
                Int32(image.height),
                Float(quality),
                Int32(method),
                lossless ? 1 : 0,
                &bytes,
                &length,
                &message,
                message.count
            )
        }
        return try EncodedBytes.take(status: status, bytes: bytes, length: length, message: message, free: bd_webp_free)
    }
}
