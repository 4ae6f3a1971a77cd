import Foundation

/// Checks that more than one section makes of its values.
extension Settings {
    /// A DNS name (letters, digits, hyphens, dots) or an IP address.
    static func isHostName(_ text: String) -> Bool {
        if IPRange.bytes(text) != nil { return true }
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return !text.isEmpty && text.utf8.count <= 253
            && labels.allSatisfy { label in
                !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                    && label.unicodeScalars.allSatisfy {
                        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                    }
            }
    }

    static func checkHostName(_ host: String) throws {
        guard Self.isHostName(host) else {
            throw Invalid(
                "\"\(host.prefix(60))\" is not a host name (a name such as images.example.com or an IP address, no scheme, path or port)"
            )
        }
    }

    static func checkHTTPURL(_ text: String) throws {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw Invalid("must be an http or https URL, got \"\(text.prefix(200))\"")
        }
    }

    /// Backdrop signs nothing: Flickr's search is a public call, for which the key alone is needed.
    static func noSecret(_ name: String) -> String {
        "\(name) is not used and can be removed: Backdrop makes only unsigned public Flickr calls, which need the API key alone"
    }
}
