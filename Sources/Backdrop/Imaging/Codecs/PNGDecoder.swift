import CPNG

/// Decodes any PNG to RGB8 with libpng (used for stock photos).
enum PNGDecoder {
    package static func isPNG(_ data: [UInt8]) -> Bool {
        data.count >= 8 && data[0..<8].elementsEqual([137, 80, 78, 71, 13, 10, 26, 10])
    }

    package static func decode(_ data: [UInt8], limits: DecodeLimits = .init()) throws -> RGBImage {
        var buffer = bd_png_buffer()
        var width: Int32 = 0
        var height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = data.withUnsafeBufferPointer { bytes in
            bd_png_decode(bytes.baseAddress, bytes.count, UInt64(limits.maxPixels), &buffer, &width, &height, &message, message.count)
        }
        guard status == 0, let pixels = buffer.bytes else {
            let text = ImagingError.text(of: message)
            throw text.contains("over the limit") ? ImagingError.tooLarge(text) : ImagingError.corrupt(text.isEmpty ? "corrupt PNG data" : text)
        }
        defer { bd_png_free(pixels) }
        return RGBImage(width: Int(width), height: Int(height)) { destination in
            destination.baseAddress?.update(from: pixels, count: buffer.length)
        }
    }
}
