import Foundation

@testable import Backdrop

#if canImport(Glibc)
import Glibc
#endif

extension Fixtures {
    /// A new file of `bytes` bytes in `folder`, held open as the disk cache holds a render's file (nil past `budget`
    /// or below the size worth sending with `sendfile`).
    static func openCacheFile(_ folder: URL, bytes: Int, budget: OpenFileBudget) throws -> CachedFile? {
        let path = folder.appendingPathComponent("entry-\(UUID().uuidString)").path
        FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: bytes))
        return CachedFile.adopt(open(path, O_RDONLY | O_CLOEXEC), payload: 0..<bytes, budget: budget)
    }

    /// A replay's terms until `until`, as the route gives them for a PNG of `/background`, its `Cache-Control` fixed.
    static func replayTerms(until: Date) -> HitReplays.Terms {
        HitReplays.Terms(
            until: until,
            cacheControl: { _ in "public" },
            route: "/background",
            format: "png",
            source: nil,
            cell: nil,
            metrics: BackdropMetrics()
        )
    }
}
