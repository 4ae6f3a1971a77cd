/// Makes arbitrary text safe as an HTTP header value: control characters (CR and LF included) become spaces, and
/// non-ASCII is percent-encoded as UTF-8 (as is `%` itself), so nothing is dropped and nothing can inject a header.
/// Text longer than `maxLength` encoded characters is cut at a character boundary, never inside a character (its UTF-8
/// sequence, or a letter and its combining accent), so that what is left always decodes (`decodeURIComponent`, `removingPercentEncoding`).
enum HeaderText {
    package static func encode(_ text: String, maxLength: Int = 512) -> String {
        var out = ""
        out.reserveCapacity(min(text.utf8.count * 3, maxLength))
        for character in text {  // whole characters (grapheme clusters): a letter is never parted from its accent
            var encoded = ""
            for scalar in character.unicodeScalars {
                switch scalar.value {
                case 0x00..<0x20, 0x7F: encoded.append(" ")
                case 0x25, 0x80...:
                    for byte in String(scalar).utf8 {
                        encoded.append("%")
                        encoded.append(String(byte, radix: 16, uppercase: true).leftPadded(to: 2))
                    }
                default: encoded.unicodeScalars.append(scalar)
                }
            }
            if out.utf8.count + encoded.utf8.count > maxLength { break }
            out.append(encoded)
        }
        return out.trimmingSpaces()
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - self.count)) + self }

    fileprivate func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while scalars.first == " " { scalars = scalars.dropFirst() }
        while scalars.last == " " { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
