import CPNG
import CPixels
import NIOCore

package enum PNGEncoder {
    package static func encode(_ image: RGBImage, compressor: PNGCompressor = .scanline) throws -> ByteBuffer {
        try self.encode(image, effect: nil, hundredths: 0, compressor: compressor)
    }

    /// Encodes `image` mixed with the reduced `effect` at `hundredths` of it; the writer enlarges the effect row by
    /// row as it blends, so neither the enlarged effect nor the blend is ever stored whole.
    package static func encode(
        _ image: RGBImage,
        blendingWith effect: ReducedEffect,
        hundredths: Int,
        compressor: PNGCompressor = .scanline
    ) throws -> ByteBuffer {
        precondition(effect.full == PixelSize(width: image.width, height: image.height), "blend needs images of one size")
        return try self.encode(image, effect: effect, hundredths: hundredths, compressor: compressor)
    }

    private static func encode(_ image: RGBImage, effect: ReducedEffect?, hundredths: Int, compressor: PNGCompressor) throws -> ByteBuffer {
        var buffer = bd_png_buffer()
        var message = [CChar](repeating: 0, count: 256)
        let weight = effect == nil ? 0 : Blend.weight(hundredths: hundredths)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            let encode = { (rows: UnsafeMutablePointer<bd_enlarger>?) in
                bd_png_encode_rows(
                    pixels.baseAddress,
                    rows,
                    weight,
                    Int32(image.width),
                    Int32(image.height),
                    compressor.c,
                    &buffer,
                    &message,
                    message.count
                )
            }
            guard let effect else { return encode(nil) }
            return effect.withRows { encode($0) }
        }
        // The bytes are the thread's scratch space; copying them out is all that is needed.
        return try EncodedBytes.take(status: status, bytes: buffer.bytes, length: buffer.length, message: message) { _ in }
    }
}
