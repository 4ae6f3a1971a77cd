import Foundation
import Hummingbird
import Logging
import NIOPosix

/// The public folder as `FileMiddleware` serves it, with one rule more than Hummingbird's `LocalFileSystem`: a file
/// is served only if its real path (symbolic links resolved) lies inside the folder's real path.
struct PublicFiles: FileProvider {
    typealias FileAttributes = LocalFileSystem.FileAttributes
    typealias FileIdentifier = LocalFileSystem.FileIdentifier

    let files: LocalFileSystem
    let root: String

    init(folder: String, logger: Logger) {
        self.files = LocalFileSystem(rootFolder: folder, threadPool: .singleton, logger: logger)
        self.root = folder
    }

    func getFileIdentifier(_ path: String) -> FileIdentifier? {
        self.files.getFileIdentifier(path)
    }

    func getAttributes(id: FileIdentifier) async throws -> FileAttributes? {
        let root = self.root
        let inside = try await NIOThreadPool.singleton.runIfActive { () -> Bool in
            let base = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
            let resolved = URL(fileURLWithPath: id).resolvingSymlinksInPath().path
            return resolved == base || resolved.hasPrefix(base.hasSuffix("/") ? base : base + "/")
        }
        guard inside else { return nil }
        return try await self.files.getAttributes(id: id)
    }

    func loadFile(id: FileIdentifier, context: some RequestContext) async throws -> ResponseBody {
        try await self.files.loadFile(id: id, context: context)
    }

    func loadFile(id: FileIdentifier, range: ClosedRange<Int>, context: some RequestContext) async throws -> ResponseBody {
        try await self.files.loadFile(id: id, range: range, context: context)
    }
}
