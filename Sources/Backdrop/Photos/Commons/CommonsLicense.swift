/// The licences Commons files may be served under: those that allow modified copies with attribution at most (CC0,
/// public domain, CC BY and CC BY-SA, any version or port). Commons itself refuses NonCommercial and NoDerivs; GFDL-only
/// and other files are skipped here too. Read from `extmetadata.License`, the machine-readable name
/// (`cc-by-sa-4.0`, `cc-by-2.0-de`, `cc0`, `pd`).
struct CommonsLicense: Sendable, Equatable {
    let name: String
    let url: String

    /// The licence a file's metadata names, or nil when it is not one of those served.
    init?(code: String, shortName: String, url: String) {
        let code = code.lowercased().trimmingCharacters(in: .whitespaces)
        let parts = code.split(separator: "-").map(String.init)
        let isVersion = { (text: String) in !text.isEmpty && text.allSatisfy { $0.isNumber || $0 == "." } }
        switch true {
        case code == "cc0" || code == "cc0-1.0":
            (self.name, self.url) = ("CC0 1.0", "https://creativecommons.org/publicdomain/zero/1.0/")
        case code == "pd" || code.hasPrefix("pd-"):
            (self.name, self.url) = ("Public domain", "https://commons.wikimedia.org/wiki/Commons:Licensing")
        case parts.count >= 3 && parts[0] == "cc" && parts[1] == "by" && isVersion(parts[2]):
            (self.name, self.url) = (shortName.isEmpty ? "CC BY \(parts[2])" : shortName, Self.https(url))
        case parts.count >= 4 && parts[0] == "cc" && parts[1] == "by" && parts[2] == "sa" && isVersion(parts[3]):
            (self.name, self.url) = (shortName.isEmpty ? "CC BY-SA \(parts[3])" : shortName, Self.https(url))
        default:
            return nil
        }
        guard self.url.hasPrefix("https://") else { return nil }
    }

    /// Commons writes some licence URLs protocol-relative or over plain HTTP.
    private static func https(_ url: String) -> String {
        if url.hasPrefix("//") { return "https:" + url }
        if url.hasPrefix("http://") { return "https://" + url.dropFirst(7) }
        return url
    }
}
