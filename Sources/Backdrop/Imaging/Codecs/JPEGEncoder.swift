import CJPEG
import NIOCore

/// Baseline JPEG through libjpeg-turbo: optimised Huffman tables, 4:2:0 chroma.
enum JPEGEncoder {
    package static func encode(_ image: RGBImage, quality: Int) throws -> ByteBuffer {
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            bd_jpeg_encode(
                pixels.baseAddress,
                Int32(image.width),
                Int32(image.height),
                Int32(quality),
                0,
                &bytes,
                &length,
                &message,
                message.count
            )
        }
        return try EncodedBytes.take(status: status, bytes: bytes, length: length, message: message, free: bd_jpeg_free)
    }
}
