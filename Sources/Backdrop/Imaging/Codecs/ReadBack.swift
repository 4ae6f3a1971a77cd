import CAVIF
import CWebP
import NIOCore

/// A lossy answer decoded from the bytes the service wrote, as a client will see it: what the fidelity check
/// (``FittedQuality``) measures against the lossless render.
package enum ReadBack {
    package static func decode(_ bytes: ByteBuffer, format: OutputFormat, size: PixelSize) throws -> RGBImage {
        let encoded = Array(buffer: bytes)
        let image: RGBImage
        switch format {
        case .png, .jpeg: image = try ImageDecoder.decode(encoded, covering: nil, limits: DecodeLimits())
        case .webp: image = try Self.decode(encoded, size: size, with: bd_webp_decode)
        case .avif: image = try Self.decode(encoded, size: size, with: bd_avif_decode)
        }
        guard image.width == size.width, image.height == size.height else {
            throw ImagingError.corrupt("a \(format.rawValue) of \(image.width)x\(image.height), not \(size.width)x\(size.height)")
        }
        return image
    }

    private typealias Decoder = (
        UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?, Int32, Int32, UnsafeMutablePointer<CChar>?, Int
    ) -> Int32

    private static func decode(_ encoded: [UInt8], size: PixelSize, with decoder: Decoder) throws -> RGBImage {
        var message = [CChar](repeating: 0, count: 256)
        var status: Int32 = 0
        let image = RGBImage(width: size.width, height: size.height) { pixels in
            status = encoded.withUnsafeBufferPointer { bytes in
                decoder(bytes.baseAddress, bytes.count, pixels.baseAddress, Int32(size.width), Int32(size.height), &message, message.count)
            }
            if status != 0 { pixels.initialize(repeating: 0) }
        }
        guard status == 0 else {
            throw ImagingError.corrupt(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return image
    }
}
