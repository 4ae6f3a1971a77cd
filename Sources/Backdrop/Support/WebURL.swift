/// An absolute `https:` or `http:` URL read as a browser reads it (the WHATWG URL standard's rules for special
/// schemes), where upstream text enters: a backslash ends the authority as a slash does, so
/// `https://evil.example\@creativecommons.org/` is a URL on evil.example, which Foundation would read as being on
/// creativecommons.org. Refused rather than repaired: userinfo (an `@` in the authority), a backslash or a control
/// character or space anywhere, a host that is not letters, digits, dots and hyphens (an IPv6 literal), a port
/// that is not 1 to 65535 digits, and anything over ``longest`` bytes. `text` is the URL as given, its scheme and host
/// in lower case, with `//host` (a protocol-relative link) taken as HTTPS.
struct WebURL: Sendable, Hashable {
    let scheme: String
    let host: String
    let port: Int?
    /// The path, query and fragment as given (`/` when empty).
    let rest: String

    static let longest = 2048

    init?(_ given: String) {
        guard given.utf8.count <= Self.longest,
            given.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0 != "\\" && !(0x80...0x9F).contains($0.value) })
        else { return nil }
        let text = given.hasPrefix("//") ? "https:" + given : given
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon].lowercased()
        guard scheme == "https" || scheme == "http", text[colon...].hasPrefix("://") else { return nil }
        let afterSlashes = text.index(colon, offsetBy: 3)
        let authorityEnd = text[afterSlashes...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        let authority = text[afterSlashes..<authorityEnd]
        guard !authority.contains("@") else { return nil }
        let hostPart: Substring
        var port: Int? = nil
        if let portColon = authority.firstIndex(of: ":") {
            hostPart = authority[..<portColon]
            let digits = authority[authority.index(after: portColon)...]
            guard (1...5).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(digits),
                (1...65535).contains(number)
            else { return nil }
            port = number
        } else {
            hostPart = authority
        }
        let host = hostPart.lowercased()
        guard !host.isEmpty, host.utf8.count <= 253, !host.hasPrefix("."), !host.hasPrefix("-"), !host.contains(".."),
            host.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" })
        else { return nil }
        self.scheme = scheme
        self.host = host.hasSuffix(".") ? String(host.dropLast()) : host
        self.port = port
        let rest = String(text[authorityEnd...])
        self.rest = rest.isEmpty || !rest.hasPrefix("/") ? "/" + rest : rest
    }

    /// The URL as text: scheme and host in lower case, the rest as given.
    var text: String { "\(self.scheme)://\(self.host)\(self.port.map { ":\($0)" } ?? "")\(self.rest)" }

    /// Whether the host is `domain` or under it.
    func isOn(_ domain: String) -> Bool { self.host == domain || self.host.hasSuffix("." + domain) }

    /// A link found at this URL (a redirect's `Location`): absolute, protocol-relative, or a path on the same host;
    /// nil for anything else.
    func resolving(_ link: String) -> WebURL? {
        if link.hasPrefix("/") && !link.hasPrefix("//") {
            return WebURL("\(self.scheme)://\(self.host)\(self.port.map { ":\($0)" } ?? "")" + link)
        }
        return link.hasPrefix("//") ? WebURL(self.scheme + ":" + link) : WebURL(link)
    }

    /// The path alone, without query or fragment.
    var path: Substring { self.rest.prefix { $0 != "?" && $0 != "#" } }
}
