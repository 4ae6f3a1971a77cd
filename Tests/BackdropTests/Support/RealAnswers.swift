import Foundation
import Testing

/// The answers the live Commons and Flickr APIs really gave (`../shared/real-api/`, beside the repository), read at
/// test time and never copied into the project; tests that need them are skipped where the folder is absent.
enum RealAnswers {
    static let folder = Fixtures.repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/real-api")

    static var available: Bool {
        FileManager.default.fileExists(atPath: Self.folder.appendingPathComponent("commons-scumabuse-geosearch-mit-cambridge.json").path)
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(name)))
    }

    static func text(_ name: String) throws -> String { String(decoding: try Self.bytes(name), as: UTF8.self) }

    /// A recorded answer's pages (an object keyed by page id, or an array), each as a JSON object.
    static func pages(_ name: String) throws -> [[String: Any]] {
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(try Self.bytes(name))) as? [String: Any])
        let pages = (answer["query"] as? [String: Any])?["pages"]
        if let list = pages as? [[String: Any]] { return list }
        return ((pages as? [String: Any]) ?? [:]).values.compactMap { $0 as? [String: Any] }
    }
}
