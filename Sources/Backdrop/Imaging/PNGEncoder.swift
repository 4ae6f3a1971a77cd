import CPNG
import NIOCore

package enum PNGEncoder {
    package static func encode(_ image: RGBImage, options: PNGOptions = .init()) throws -> ByteBuffer {
        try self.encode(image, blendingWith: nil, hundredths: 0, options: options)
    }

    /// Encodes `image` mixed with `effect` at `hundredths` of the effect (see `Blend`). Backdrop's writer (libdeflate or
    /// scanline) mixes row by row while filtering, so no blended copy of the image is made.
    package static func encode(_ image: RGBImage, blendingWith effect: RGBImage?, hundredths: Int, options: PNGOptions = .init()) throws -> ByteBuffer
    {
        var buffer = bd_png_buffer()
        var message = [CChar](repeating: 0, count: 256)
        let status: Int32
        switch options.encoder {
        case .libpng:
            let blended = effect.map { Blend.mix(sharp: image, effect: $0, hundredths: hundredths) } ?? image
            status = blended.pixels.withUnsafeBufferPointer { pixels in
                bd_png_encode_libpng(
                    pixels.baseAddress,
                    Int32(image.width),
                    Int32(image.height),
                    Int32(options.level),
                    options.filter.c,
                    &buffer,
                    &message,
                    message.count
                )
            }
        case .libdeflate, .scanline:
            if let effect {
                precondition(effect.width == image.width && effect.height == image.height, "blend needs images of one size")
            }
            let weight = Blend.weight(hundredths: hundredths)
            status = image.pixels.withUnsafeBufferPointer { pixels in
                let encode = { (other: UnsafePointer<UInt8>?) in
                    bd_png_encode_rows(
                        pixels.baseAddress,
                        other,
                        other == nil ? 0 : weight,
                        Int32(image.width),
                        Int32(image.height),
                        options.encoder == .scanline ? BD_PNG_DEFLATE_SCANLINE : BD_PNG_DEFLATE_LIBDEFLATE,
                        Int32(options.level),
                        options.filter.c,
                        &buffer,
                        &message,
                        message.count
                    )
                }
                guard let effect else { return encode(nil) }
                return effect.pixels.withUnsafeBufferPointer { encode($0.baseAddress) }
            }
        }
        // Scratch-space bytes (not `must_free`) stay with the thread; copying them out is all that is needed.
        return try EncodedBytes.take(status: status, bytes: buffer.bytes, length: buffer.length, message: message) { bytes in
            if buffer.must_free != 0 { bd_png_free(bytes) }
        }
    }
}
