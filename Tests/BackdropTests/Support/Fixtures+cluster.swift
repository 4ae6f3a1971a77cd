import Foundation
import NIOPosix

@testable import Backdrop

/// What the tests of replicas and admission share: results as replicas share them, a source with no downloads, and
/// a pool of one thread.
extension Fixtures {
    /// Results as replicas share them.
    static func shared(_ results: [CandidatePhoto]) -> Data { (try? JSONEncoder().encode(results)) ?? Data() }

    struct NoDownloads: ImageDownloading {
        func download(_ url: String) async throws -> [UInt8] { throw DownloadError(.failed, "not in these tests") }
    }

    /// A pool of one thread for one test (left to end with the test process).
    static func pool() -> NIOThreadPool {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        return pool
    }
}
