import CPNG
import CPixels
import NIOCore

package enum PNGEncoder {
    package static func encode(_ image: RGBImage, options: PNGOptions = .init()) throws -> ByteBuffer {
        try self.encode(image, effect: .none, hundredths: 0, options: options)
    }

    /// Encodes `image` mixed with `effect` at `hundredths` of the effect (see `Blend`). Backdrop's writer (libdeflate or
    /// scanline) mixes row by row while filtering, so no blended copy of the image is made.
    package static func encode(_ image: RGBImage, blendingWith effect: RGBImage, hundredths: Int, options: PNGOptions = .init()) throws -> ByteBuffer
    {
        precondition(effect.width == image.width && effect.height == image.height, "blend needs images of one size")
        return try self.encode(image, effect: .image(effect), hundredths: hundredths, options: options)
    }

    /// Encodes `image` mixed with the reduced `effect` at `hundredths` of it; Backdrop's writer enlarges the effect
    /// row by row as it blends, so neither the enlarged effect nor the blend is ever stored whole.
    package static func encode(
        _ image: RGBImage,
        blendingWith effect: ReducedEffect,
        hundredths: Int,
        options: PNGOptions = .init()
    ) throws -> ByteBuffer {
        precondition(effect.full == PixelSize(width: image.width, height: image.height), "blend needs images of one size")
        return try self.encode(image, effect: .reduced(effect), hundredths: hundredths, options: options)
    }

    private enum Effect {
        case none
        case image(RGBImage)
        case reduced(ReducedEffect)
    }

    private static func encode(_ image: RGBImage, effect: Effect, hundredths: Int, options: PNGOptions) throws -> ByteBuffer {
        var buffer = bd_png_buffer()
        var message = [CChar](repeating: 0, count: 256)
        let status: Int32
        if options.encoder == .libpng {
            let blended: RGBImage
            switch effect {
            case .none: blended = image
            case .image(let effect): blended = Blend.mix(sharp: image, effect: effect, hundredths: hundredths)
            case .reduced(let effect): blended = Blend.mix(sharp: image, effect: effect.enlarged(), hundredths: hundredths)
            }
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
        } else {
            let weight = Blend.weight(hundredths: hundredths)
            status = image.pixels.withUnsafeBufferPointer { pixels in
                let encode = { (other: UnsafePointer<UInt8>?, rows: UnsafeMutablePointer<bd_enlarger>?) in
                    bd_png_encode_rows(
                        pixels.baseAddress,
                        other,
                        rows,
                        other == nil && rows == nil ? 0 : weight,
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
                switch effect {
                case .none: return encode(nil, nil)
                case .image(let effect): return effect.pixels.withUnsafeBufferPointer { encode($0.baseAddress, nil) }
                case .reduced(let effect): return effect.withRows { encode(nil, $0) }
                }
            }
        }
        // Scratch-space bytes (not `must_free`) stay with the thread; copying them out is all that is needed.
        return try EncodedBytes.take(status: status, bytes: buffer.bytes, length: buffer.length, message: message) { bytes in
            if buffer.must_free != 0 { bd_png_free(bytes) }
        }
    }
}
