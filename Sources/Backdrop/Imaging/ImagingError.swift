import NIOCore

/// A decode or encode failure. The description is short and bounded, safe for logs and metric labels.
struct ImagingError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable, Equatable {
        case corrupt
        case tooLarge
        case unsupported
        case encodeFailed
    }

    let kind: Kind
    package let message: String

    package static func corrupt(_ message: String) -> Self { .init(kind: .corrupt, message: message) }
    package static func tooLarge(_ message: String) -> Self { .init(kind: .tooLarge, message: message) }
    package static func unsupported(_ message: String) -> Self { .init(kind: .unsupported, message: message) }
    package static func encodeFailed(_ message: String) -> Self { .init(kind: .encodeFailed, message: message) }

    package var isTooLarge: Bool { self.kind == .tooLarge }

    /// The text a C wrapper wrote into `message` (NUL-terminated, bytes taken as UTF-8).
    static func text(of message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    package var description: String { String(self.message.prefix(200)) }
}

/// Copies what a C encoder returned into the buffer that will be sent and cached (the one copy of an encoded image)
/// and frees it, or turns its failure message into a Swift error. The bench's lab encoders hand theirs over the same way.
package enum EncodedBytes {
    package static func take(
        status: Int32,
        bytes: UnsafeMutablePointer<UInt8>?,
        length: Int,
        message: [CChar],
        free: (UnsafeMutablePointer<UInt8>) -> Void
    ) throws -> ByteBuffer {
        guard status == 0, let bytes else {
            throw ImagingError.encodeFailed(ImagingError.text(of: message))
        }
        defer { free(bytes) }
        return ByteBuffer(bytes: UnsafeRawBufferPointer(start: bytes, count: length))
    }
}
