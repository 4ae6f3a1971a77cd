/// Copies what a C encoder returned into Swift bytes and frees it, or turns its failure message into a Swift error.
enum EncodedBytes {
    static func take(status: Int32, bytes: UnsafeMutablePointer<UInt8>?, length: Int, message: [CChar],
                     free: (UnsafeMutablePointer<UInt8>) -> Void) throws -> [UInt8] {
        guard status == 0, let bytes else {
            throw ImagingError.encodeFailed(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { free(bytes) }
        return [UInt8](UnsafeBufferPointer(start: bytes, count: length))
    }
}
