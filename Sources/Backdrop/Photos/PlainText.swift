/// Text from a source's metadata as one plain line, wherever a credit goes (a header, the JSON, a page, an app):
/// Commons' HTML (`Artist`, `Attribution`, `ObjectName`) with its tags removed (a `>` inside a quoted attribute value
/// ends no tag), the contents of `<style>` and `<script>` and comments dropped, the usual entities decoded; then, for
/// any text, whitespace collapsed, control and format characters (bidirectional controls could reorder what a page
/// shows around the credit; zero-width ones hide words from a match) dropped, but ZWJ and ZWNJ within a word, and at most `limit` characters and `4 × limit` bytes (a letter carrying 300,000
/// combining marks is one character). No markup ever reaches a header, the JSON or a page.
enum PlainText {
    static func from(html: String, limit: Int = 200) -> String {
        Self.line(Self.decodeEntities(Self.stripMarkup(html)), limit: limit)
    }

    /// `text` (not HTML) as one clean line of at most `limit` characters and `4 × limit` bytes.
    static func line(_ text: String, limit: Int = 200) -> String {
        var scalars = String.UnicodeScalarView()
        var space = false
        var bytes = 0
        let input = text.unicodeScalars
        for index in input.indices {
            let scalar = input[index]
            // Format characters (bidirectional controls, zero-width spaces, soft hyphens, word joiners, tag characters)
            // show nothing and can hide or reorder what is shown: dropped, but for ZWJ and ZWNJ within a word, which
            // some scripts need.
            if scalar.properties.generalCategory == .format {
                let next = input.index(after: index)
                let withinWord =
                    (scalar.value == 0x200C || scalar.value == 0x200D) && !space && scalars.last.map(Self.isWordPart) == true
                    && next < input.endIndex && Self.isWordPart(input[next])
                if !withinWord { continue }
            }
            let isSpace = scalar.properties.isWhitespace || scalar.properties.generalCategory == .control || scalar == "<" || scalar == ">"
            if isSpace {
                space = !scalars.isEmpty
                continue
            }
            let extra = (space ? 1 : 0) + String(scalar).utf8.count
            guard bytes + extra <= limit * 4 else { break }
            if space { scalars.append(" ") }
            scalars.append(scalar)
            bytes += extra
            space = false
        }
        let joined = String(scalars)
        return joined.count > limit ? String(joined.prefix(limit - 1)) + "…" : joined
    }

    private static func isWordPart(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .spacingMark
    }

    /// `html` with tags replaced by spaces, comments and the contents of `<style>` and `<script>` dropped.
    static func stripMarkup(_ html: String) -> String {
        var out = ""
        var rest = Substring(html)
        while let open = rest.firstIndex(of: "<") {
            out += rest[..<open]
            let tag = rest[open...]
            if tag.hasPrefix("<!--") {
                rest = tag.range(of: "-->").map { tag[$0.upperBound...] } ?? ""
                continue
            }
            guard let close = Self.tagEnd(tag) else { break }  // an unclosed tag: nothing after it is text
            let name = tag.dropFirst().prefix { $0.isLetter }.lowercased()
            rest = tag[tag.index(after: close)...]
            if name == "style" || name == "script" {
                rest =
                    rest.range(of: "</\(name)", options: .caseInsensitive).map { end in
                        rest[end.upperBound...].firstIndex(of: ">").map { rest[rest.index(after: $0)...] } ?? ""
                    } ?? ""
            }
            out += " "
        }
        return out + rest
    }

    /// The `>` that ends the tag `tag` begins, outside quoted attribute values; nil when none does.
    private static func tagEnd(_ tag: Substring) -> Substring.Index? {
        var quote: Character?
        for index in tag.indices.dropFirst() {
            let character = tag[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == ">" {
                return index
            }
        }
        return nil
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
