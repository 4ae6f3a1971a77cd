import Foundation

/// Chooses `/background`'s image format from a request's `Accept` header (RFC 9110, section 12.5.1).
///
/// - No header, `*/*` or `image/*` alone: PNG, the service's original contract (curl, scripts, old clients).
/// - Image formats the client names explicitly with q > 0: the highest q wins; among equal q, AVIF, then WebP, then
///   JPEG, then PNG (smallest files first). Browsers name `image/avif` and `image/webp` explicitly, all at q = 1.
/// - `q=0` refuses a type, also one a wildcard would accept. A refused PNG under a wildcard falls to the most widely
///   decodable format left (JPEG, then WebP, then AVIF).
/// - Nothing acceptable left (`Accept: text/html`): nil, answered 406.
/// - A malformed header (an element that is no media range, a q that is no number from 0 to 1) is read as `*/*`.
enum FormatNegotiation {
    struct Range {
        let type: Substring
        let subtype: Substring
        let q: Int  // thousandths
    }

    static func choose(accept: String?) -> OutputFormat? {
        guard let accept, let ranges = self.parse(accept), !ranges.isEmpty else { return .png }
        let quality = Dictionary(uniqueKeysWithValues: OutputFormat.allCases.map { ($0, self.quality(of: $0, in: ranges)) })
        let named = OutputFormat.preference.filter { format in
            ranges.contains { $0.type == "image" && $0.subtype == Substring(format.rawValue) && $0.q > 0 }
        }
        if let best = named.map({ quality[$0] ?? 0 }).max(), best > 0 {
            return named.first { quality[$0] == best }
        }
        return [OutputFormat.png, .jpeg, .webp, .avif].first { (quality[$0] ?? 0) > 0 }
    }

    /// The q of the most specific range matching `format`'s media type; 0 when none does.
    static func quality(of format: OutputFormat, in ranges: [Range]) -> Int {
        let subtype = Substring(format.rawValue)
        if let exact = ranges.first(where: { $0.type == "image" && $0.subtype == subtype }) { return exact.q }
        if let images = ranges.first(where: { $0.type == "image" && $0.subtype == "*" }) { return images.q }
        if let any = ranges.first(where: { $0.type == "*" && $0.subtype == "*" }) { return any.q }
        return 0
    }

    /// The header's media ranges, lowercased; nil if any element is malformed.
    static func parse(_ header: String) -> [Range]? {
        guard header.utf8.count <= 4096 else { return nil }
        var ranges = [Range]()
        for element in header.lowercased().split(separator: ",") {
            let parts = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let mediaRange = parts.first, !mediaRange.isEmpty else { continue }  // empty list elements are allowed
            let halves = mediaRange.split(separator: "/", omittingEmptySubsequences: false)
            guard halves.count == 2, self.isToken(halves[0]), self.isToken(halves[1]), halves[0] != "*" || halves[1] == "*" else {
                return nil
            }
            var q = 1000
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2 else { return nil }
                if pair[0] == "q" {
                    guard let value = self.qValue(pair[1]) else { return nil }
                    q = value
                }
            }
            ranges.append(Range(type: halves[0], subtype: halves[1], q: q))
        }
        return ranges
    }

    /// RFC 9110's qvalue: "0" or "1" with up to three decimals, 1 at most; in thousandths.
    static func qValue(_ text: String) -> Int? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        let fraction = parts.count > 1 ? parts[1] : ""
        guard fraction.count <= 3, fraction.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        let thousandths = (whole == "1" ? 1000 : 0) + (Int(fraction.padding(toLength: 3, withPad: "0", startingAt: 0)) ?? 0)
        return thousandths <= 1000 ? thousandths : nil
    }

    private static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (48...57).contains(byte) || (97...122).contains(byte) || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
    }
}
