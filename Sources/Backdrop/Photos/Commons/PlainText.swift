/// Text from Commons' HTML metadata (`Artist`, `Attribution`, `ObjectName`, `DateTimeOriginal`) as plain text: tags
/// removed, the usual entities decoded, whitespace collapsed, control characters dropped, at most `limit` characters.
/// No markup ever reaches a header, the JSON or a page.
enum PlainText {
    static func from(html: String, limit: Int = 200) -> String {
        var text = ""
        var inTag = false
        for character in html {
            if character == "<" {
                inTag = true
            } else if character == ">" && inTag {
                inTag = false
                text.append(" ")
            } else if !inTag {
                text.append(character)
            }
        }
        text = Self.decodeEntities(text)
        let words = text.split(whereSeparator: { $0.isWhitespace || $0.unicodeScalars.allSatisfy { $0.properties.generalCategory == .control } })
        let joined = words.joined(separator: " ").replacingOccurrences(of: "<", with: "").replacingOccurrences(of: ">", with: "")
        return joined.count > limit ? String(joined.prefix(limit - 1)) + "…" : joined
    }

    private static let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "#39": "'"]

    private static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semi = after.prefix(10).firstIndex(of: ";") {
                let name = String(after[..<semi])
                if let value = Self.named[name] {
                    out += value
                    rest = after[after.index(after: semi)...]
                    continue
                }
                if name.hasPrefix("#"), let code = name.hasPrefix("#x") ? UInt32(name.dropFirst(2), radix: 16) : UInt32(name.dropFirst()),
                    let scalar = Unicode.Scalar(code)
                {
                    out.unicodeScalars.append(scalar)
                    rest = after[after.index(after: semi)...]
                    continue
                }
            }
            out += "&"
            rest = after
        }
        return out + rest
    }
}
