/// Text from a photo's credit as one plain line: the bidirectional controls (embeddings, overrides, isolates, marks)
/// removed, so that a name or title cannot reorder the app's text around it. The service sends credits without them;
/// the client removes them again, whatever sits between (an older service, a proxy).
enum PlainLine {
    static func of(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { !Self.isBidiControl($0) }))
    }

    /// U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
