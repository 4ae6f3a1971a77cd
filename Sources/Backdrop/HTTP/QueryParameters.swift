import Foundation

/// A URL query split into name/value pairs, strictly: every name must be allowed and appear at most once.
struct QueryParameters {
    private(set) var values: [String: String] = [:]

    init(_ query: String?, allowed: Set<String>) throws(APIError) {
        guard let query, !query.isEmpty else { return }
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = String(pieces[0])
            // Names are spelled literally: a router that routes by a parameter (nginx's $arg_cell) and a trace that
            // redacts by name see the name as written, so an encoded one (`cel%6C`) would slip past both.
            guard !rawName.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
                throw .badParameter(Self.printable(rawName), "parameter names must be written literally, not percent-encoded")
            }
            let name = rawName
            guard allowed.contains(name) else {
                throw .badParameter(Self.printable(name), "unknown parameter; allowed: \(allowed.sorted().joined(separator: ", "))")
            }
            guard self.values[name] == nil else {
                throw .badParameter(name, "parameter appears more than once")
            }
            let rawValue = pieces.count > 1 ? String(pieces[1]) : ""
            guard let value = Self.decode(rawValue) else {
                throw .badParameter(name, "value is not valid percent-encoding")
            }
            self.values[name] = value
        }
    }

    subscript(name: String) -> String? { self.values[name] }

    /// Form decoding: `+` is a space, `%XX` a byte; the bytes must be UTF-8.
    private static func decode(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return text }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "+"):
                out.append(UInt8(ascii: " "))
                index += 1
            case UInt8(ascii: "%"):
                guard index + 2 < bytes.count, let high = Self.hex(bytes[index + 1]), let low = Self.hex(bytes[index + 2]) else { return nil }
                out.append(high << 4 | low)
                index += 3
            default:
                out.append(bytes[index])
                index += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A name safe to echo back: printable ASCII, at most 64 characters.
    private static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }.prefix(64)))
    }
}
