import BackdropLab
import CTestDecoders
import Testing

@testable import Backdrop

/// Any of the output formats decoded back to RGB (WebP and AVIF through their libraries' decoders).
func decodeImage(_ bytes: [UInt8], as format: OutputFormat) throws -> RGBImage {
    func take(
        _ decode: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>) -> UnsafeMutablePointer<UInt8>?,
        free: (UnsafeMutablePointer<UInt8>) -> Void
    ) throws -> RGBImage {
        var width: Int32 = 0
        var height: Int32 = 0
        let pixels = try #require(bytes.withUnsafeBufferPointer { decode($0.baseAddress, $0.count, &width, &height) })
        defer { free(pixels) }
        return RGBImage(width: Int(width), height: Int(height), pixels: Array(UnsafeBufferPointer(start: pixels, count: Int(width * height * 3))))
    }
    switch format {
    case .png: return try PNGDecoder.decode(bytes)
    case .jpeg: return try ImageDecoder.decode(bytes, covering: nil, limits: DecodeLimits())
    case .webp: return try take(bd_webp_decode_rgb, free: bd_decoded_webp_free)
    case .avif: return try take(bd_avif_decode_rgb, free: bd_decoded_avif_free)
    }
}

/// The magic bytes each format starts with.
func hasSignature(_ bytes: [UInt8], of format: OutputFormat) -> Bool {
    switch format {
    case .png: bytes.starts(with: [0x89, 0x50, 0x4E, 0x47])
    case .jpeg: bytes.starts(with: [0xFF, 0xD8, 0xFF])
    case .webp: bytes.starts(with: Array("RIFF".utf8)) && Array(bytes.dropFirst(8).prefix(4)) == Array("WEBP".utf8)
    case .avif: Array(bytes.dropFirst(4).prefix(8)) == Array("ftypavif".utf8)
    }
}
