import Foundation

/// The licences Commons files may be served under: those that allow modified copies with attribution at most (CC0,
/// public domain, CC BY and CC BY-SA, any version or port). Commons itself refuses NonCommercial and NoDerivs; GFDL-only
/// and other files are skipped here too. Read from `extmetadata.License`, the machine-readable name, which must be one
/// of the known forms exactly (`cc0`, `pd`, `cc-by-4.0`, `cc-by-sa-2.0-de`: a port is a country's two letters, or
/// `scotland` or `igo`, so `cc-by-2.0-nc` is refused). The name and the link are made from the code alone: the file's
/// `LicenseUrl` is a page edit away from leading anywhere (`https://evil.example\@creativecommons.org/`), so it is
/// never passed on.
struct CommonsLicense: Sendable, Equatable {
    let name: String
    let url: String

    /// The licence a file's metadata names, or nil when it is not one of those served.
    init?(code: String) {
        let code = code.lowercased().trimmingCharacters(in: .whitespaces)
        let parts = code.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        let isVersion = { (text: String) in ["1.0", "2.0", "2.5", "3.0", "4.0"].contains(text) }
        // A port: a country's two letters (never a licence element such as nc or nd), or Scotland's and IGO's ports.
        let isPort = { (text: String) in
            (text.count == 2 && text.allSatisfy { $0.isASCII && $0.isLetter } && !["by", "sa", "nc", "nd"].contains(text))
                || ["scotland", "igo"].contains(text)
        }
        switch true {
        case code == "cc0" || code == "cc0-1.0":
            self.init(name: "CC0 1.0", url: "https://creativecommons.org/publicdomain/zero/1.0/")
        case code == "pd":
            self.init(name: "Public domain", url: "https://commons.wikimedia.org/wiki/Commons:Licensing")
        case (parts.count == 3 || parts.count == 4) && parts[0] == "cc" && parts[1] == "by" && isVersion(parts[2])
            && (parts.count == 3 || isPort(parts[3])):
            self.init(kind: "by", version: parts[2], port: parts.count == 4 ? parts[3] : nil)
        case (parts.count == 4 || parts.count == 5) && parts[0] == "cc" && parts[1] == "by" && parts[2] == "sa" && isVersion(parts[3])
            && (parts.count == 4 || isPort(parts[4])):
            self.init(kind: "by-sa", version: parts[3], port: parts.count == 5 ? parts[4] : nil)
        default:
            return nil
        }
    }

    private init(kind: String, version: String, port: String?) {
        let url = "https://creativecommons.org/licenses/\(kind)/\(version)/" + (port.map { "\($0)/" } ?? "")
        self.init(name: "CC \(kind.uppercased()) \(version)" + (port.map { " \($0.uppercased())" } ?? ""), url: url)
    }

    /// The machine-readable code for a `LicenseShortName` (`CC BY-SA 3.0` gives `cc-by-sa-3.0`, `Public domain` gives
    /// `pd`), for an answer that carries no `License` (one that asked for the short name alone).
    static func code(shortName: String) -> String {
        let words = shortName.lowercased().split(whereSeparator: { $0 == " " || $0 == "-" })
        let code = words.joined(separator: "-")
        return code == "public-domain" ? "pd" : code
    }

    private init(name: String, url: String) {
        self.name = name
        self.url = url
    }
}
