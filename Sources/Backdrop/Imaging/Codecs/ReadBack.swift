import CAVIF
import CWebP
import NIOCore

/// An answer decoded from the bytes the service wrote, as a client will see it: what the fidelity check
/// (``FittedQuality``) measures against the lossless render, and what the tests and the bench read back.
package enum ReadBack {
    /// `bytes` as `format`, which must be `size` when one is given.
    package static func decode(_ bytes: ByteBuffer, format: OutputFormat, size: PixelSize? = nil) throws -> RGBImage {
        try self.decode(Array(buffer: bytes), format: format, size: size)
    }

    package static func decode(_ encoded: [UInt8], format: OutputFormat, size expected: PixelSize? = nil) throws -> RGBImage {
        let image: RGBImage
        switch format {
        case .png: image = try PNGDecoder.decode(encoded, limits: DecodeLimits())
        case .jpeg: image = try JPEGDecoder.decode(encoded, limits: DecodeLimits())
        case .webp: image = try Self.decode(encoded, size: expected, measure: bd_webp_size, decoder: bd_webp_decode)
        case .avif: image = try Self.decode(encoded, size: expected, measure: bd_avif_size, decoder: bd_avif_decode)
        }
        if let expected, image.width != expected.width || image.height != expected.height {
            throw ImagingError.corrupt("a \(format.rawValue) of \(image.width)x\(image.height), not \(expected.width)x\(expected.height)")
        }
        return image
    }

    /// dB PSNR of `bytes`, read back as `format`, against `picture`. (Comparing a JPEG's rows as they are decoded, never
    /// storing it, measured no faster: the decode is the cost.)
    package static func fidelity(of bytes: ByteBuffer, format: OutputFormat, against picture: RGBImage) throws -> Double {
        try Self.decode(bytes, format: format, size: PixelSize(width: picture.width, height: picture.height)).psnr(against: picture)
    }

    private typealias Measure = (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) -> Int32
    private typealias Decoder = (
        UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?, Int32, Int32, UnsafeMutablePointer<CChar>?, Int
    ) -> Int32

    private static func decode(_ encoded: [UInt8], size expected: PixelSize?, measure: Measure, decoder: Decoder) throws -> RGBImage {
        var (width, height): (Int32, Int32) = (0, 0)
        if let expected {
            (width, height) = (Int32(clamping: expected.width), Int32(clamping: expected.height))
        } else {
            guard encoded.withUnsafeBufferPointer({ measure($0.baseAddress, $0.count, &width, &height) }) == 0 else {
                throw ImagingError.corrupt("not an image of its format")
            }
        }
        let size = PixelSize(width: Int(width), height: Int(height))
        guard size.width > 0, size.height > 0, size.pixelCount <= DecodeLimits().maxPixels else {
            throw ImagingError.tooLarge("an image of \(size.width)x\(size.height)")
        }
        var message = [CChar](repeating: 0, count: 256)
        var status: Int32 = 0
        let image = RGBImage(width: size.width, height: size.height) { pixels in
            status = encoded.withUnsafeBufferPointer { bytes in
                decoder(bytes.baseAddress, bytes.count, pixels.baseAddress, width, height, &message, message.count)
            }
            if status != 0 { pixels.initialize(repeating: 0) }
        }
        guard status == 0 else {
            throw ImagingError.corrupt(ImagingError.text(of: message))
        }
        return image
    }
}
