import NIOCore

/// Request heads as bytes, read the way NIO's HTTP/1 decoder reads them only where that is certain, for
/// ``HitBytesHandler``: where a head ends, and whether the decoder would read it as exactly that head and no body.
enum HeadBytes {
    /// The longest head answered from its bytes (longer ones go to the decoder).
    static let longest = 2048

    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")

    /// The length of the head at the start of `buffer` up to and including its first blank line, if the buffer holds
    /// one within ``longest`` bytes.
    static func length(_ buffer: ByteBuffer) -> Int? {
        buffer.withUnsafeReadableBytes { bytes in
            let count = min(bytes.count, Self.longest)
            var index = 3
            while index < count {
                if bytes[index] == Self.lf, bytes[index - 1] == Self.cr, bytes[index - 2] == Self.lf, bytes[index - 3] == Self.cr {
                    return index + 1
                }
                index += 1
            }
            return nil
        }
    }

    /// Whether the decoder reads `head` (as ``length(_:)`` found it) as one head ending where it ends, with no body
    /// after it: a request line that begins with a capital letter and ends in `HTTP/1.1`, not `CONNECT`; every line
    /// ended by CRLF and no CR or LF alone (the decoder's lenient line ends would end it elsewhere); no
    /// `Content-Length` or `Transfer-Encoding` anywhere in it, in any case, and no `Upgrade` field.
    static func isPlain(_ head: ByteBuffer) -> Bool {
        head.withUnsafeReadableBytes { bytes in
            guard let first = bytes.first, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first), !Self.has(bytes, "connect ", at: 0)
            else { return false }
            var lineEnd: Int?
            for index in bytes.indices {
                switch bytes[index] {
                case Self.cr:
                    guard index + 1 < bytes.count, bytes[index + 1] == Self.lf else { return false }
                    if lineEnd == nil { lineEnd = index }
                case Self.lf:
                    guard index > 0, bytes[index - 1] == Self.cr else { return false }
                case UInt8(ascii: "c"), UInt8(ascii: "C"):
                    if Self.has(bytes, "content-length", at: index) { return false }
                case UInt8(ascii: "t"), UInt8(ascii: "T"):
                    if Self.has(bytes, "transfer-encoding", at: index) { return false }
                case UInt8(ascii: "u"), UInt8(ascii: "U"):
                    if index > 0, bytes[index - 1] == Self.lf, Self.has(bytes, "upgrade", at: index),
                        index + 7 < bytes.count, [UInt8(ascii: ":"), UInt8(ascii: " "), UInt8(ascii: "\t")].contains(bytes[index + 7])
                    {
                        return false
                    }
                default:
                    break
                }
            }
            guard let lineEnd else { return false }
            return Self.has(bytes, " http/1.1", at: lineEnd - 9)
        }
    }

    /// Whether `head` begins with the request line `GET target HTTP/1.1`.
    static func begins(_ head: ByteBuffer, getting target: String) -> Bool {
        head.readableBytesView.starts(with: "GET \(target) HTTP/1.1\r\n".utf8)
    }

    /// Whether `bytes` holds `word` (lowercase ASCII) at `index`, in any case.
    private static func has(_ bytes: UnsafeRawBufferPointer, _ word: StaticString, at index: Int) -> Bool {
        guard index >= 0, index + word.utf8CodeUnitCount <= bytes.count else { return false }
        return word.withUTF8Buffer { letters in
            letters.indices.allSatisfy { bytes[index + $0] | 0x20 == letters[$0] }
        }
    }
}
