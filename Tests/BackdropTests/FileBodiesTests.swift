import Foundation
import NIOCore
import Testing

@testable import Backdrop

/// The route's hand-off of open cache files to the transport: matched by identity, bounded, within the open-file budget.
@Suite("Bodies sent from cache files")
struct FileBodiesTests {
    @Test func aBodyIsMatchedByIdentityNeverByLength() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = OpenFileBudget.minimumPayload
        let file = try #require(try Fixtures.openCacheFile(folder, bytes: size, budget: OpenFileBudget(limit: 4)))
        let offered = ByteBuffer(repeating: 1, count: size)
        let bodies = FileBodies()
        bodies.offer(offered, file: file, replay: nil)
        #expect(bodies.take(ByteBuffer(repeating: 1, count: size)) == nil, "same length and bytes, other storage: not the offered body")
        let written = offered  // what the transport sees: the same buffer, passed along
        #expect(bodies.take(written)?.file === file)
        #expect(bodies.take(written) == nil, "an offer serves one write")
    }

    @Test func offersAndOpenFilesStayBounded() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let budget = OpenFileBudget(limit: 3)
        #expect(try Fixtures.openCacheFile(folder, bytes: 100, budget: budget) == nil, "too small to gain from sendfile")
        var files = try (0..<3).map { _ in try Fixtures.openCacheFile(folder, bytes: OpenFileBudget.minimumPayload, budget: budget) }
        #expect(files.allSatisfy { $0 != nil } && budget.count == 3)
        #expect(try Fixtures.openCacheFile(folder, bytes: OpenFileBudget.minimumPayload, budget: budget) == nil, "no file past the budget")
        files.removeFirst()
        #expect(budget.count == 2, "a file closes when its last holder lets go")

        let bodies = FileBodies()
        let file = try #require(files.first ?? nil)
        for _ in 0..<20 { bodies.offer(ByteBuffer(repeating: 1, count: 10), file: file, replay: nil) }
        #expect(bodies.pendingCount == 8, "offers never taken are forgotten")
    }
}
