/// Makes arbitrary text safe as an HTTP header value: control characters (CR and LF included) become spaces, and
/// non-ASCII is percent-encoded as UTF-8 (as is `%` itself), so nothing is dropped and nothing can inject a header.
public enum HeaderText {
    public static func encode(_ text: String, maxLength: Int = 512) -> String {
        var out = ""
        out.reserveCapacity(min(text.utf8.count, maxLength))
        for byte in text.utf8 {
            if out.utf8.count >= maxLength { break }
            switch byte {
            case 0x00..<0x20, 0x7F: out.append(" ")
            case UInt8(ascii: "%"), 0x80...0xFF:
                out.append("%")
                out.append(String(byte, radix: 16, uppercase: true).leftPadded(to: 2))
            default: out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out.trimmingSpaces()
    }
}

private extension String {
    func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - self.count)) + self }

    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while scalars.first == " " { scalars = scalars.dropFirst() }
        while scalars.last == " " { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
