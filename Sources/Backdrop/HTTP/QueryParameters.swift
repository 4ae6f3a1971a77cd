import Foundation

/// A URL query split into name/value pairs, strictly: every name must be allowed and appear at most once.
struct QueryParameters {
    private(set) var values: [String: String] = [:]

    init(_ query: String?, allowed: Set<String>) throws(APIError) {
        guard let query, !query.isEmpty else { return }
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = String(pieces[0])
            guard let name = Self.decode(rawName) else {
                throw .badParameter(Self.printable(rawName), "parameter name is not valid percent-encoding")
            }
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

    private static func decode(_ text: String) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// A name safe to echo back: printable ASCII, at most 64 characters.
    private static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }.prefix(64)))
    }
}
