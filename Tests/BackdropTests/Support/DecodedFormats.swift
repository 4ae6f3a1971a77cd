import Testing

@testable import Backdrop

/// Any of the output formats decoded back to RGB, as the service reads its answers back (``ReadBack``).
func decodeImage(_ bytes: [UInt8], as format: OutputFormat) throws -> RGBImage {
    try ReadBack.decode(bytes, format: format)
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
