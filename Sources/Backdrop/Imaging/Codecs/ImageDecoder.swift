/// Picks the decoder from the data's magic bytes.
enum ImageDecoder {
    package static func decode(_ bytes: [UInt8], covering size: PixelSize?, limits: DecodeLimits) throws -> RGBImage {
        if JPEGDecoder.isJPEG(bytes) { return try JPEGDecoder.decode(bytes, covering: size, limits: limits) }
        if PNGDecoder.isPNG(bytes) { return try PNGDecoder.decode(bytes, limits: limits) }
        throw ImagingError.unsupported("not a JPEG or PNG image")
    }
}
