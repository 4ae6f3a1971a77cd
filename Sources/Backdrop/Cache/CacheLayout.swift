import Foundation

/// Where the disk cache keeps an entry: a file named by a hash of its key (no request string reaches a path), in one of
/// 256 subfolders named by the hash's first two hex digits (no folder grows to a million names).
struct CacheLayout: Sendable {
    let folder: URL

    /// The path of the file `name`.
    func path(_ name: String) -> String {
        self.folder.appendingPathComponent(Self.subfolder(of: name)).appendingPathComponent(name).path
    }

    /// The subfolder `subfolder`'s URL.
    func url(of subfolder: String) -> URL { self.folder.appendingPathComponent(subfolder) }

    /// The file name of the entry `key` of `kind`.
    static func fileName(for key: String, kind: CacheEntry.Kind) -> String {
        "\(kind.label)-\(String(StableHash.of(key), radix: 16)).bdc"
    }

    /// The subfolder a file lives in: the first two hex digits of its key's hash.
    static func subfolder(of name: String) -> String {
        let hash = name.split(separator: "-").last.map { $0.prefix { $0 != "." } } ?? ""
        let digits = String(repeating: "0", count: max(0, 16 - hash.count)) + hash
        return String(digits.prefix(2))
    }

    /// Whether `name`, found in the folder, is one of its subfolders.
    static func isSubfolder(_ name: String) -> Bool {
        name.count == 2 && name.allSatisfy(\.isHexDigit) && name == name.lowercased()
    }
}
