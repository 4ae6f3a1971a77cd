import Foundation
import Logging
import ServiceLifecycle
import Testing

@testable import Backdrop

/// The disk cache's I/O thread is a service of the application: it ends with the rest, after the cache's other parts.
@Suite("The disk I/O thread")
struct DiskIOThreadTests {
    @Test func theThreadShutsDownWithTheServicesAfterTheSweeper() async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var cache = Settings.Cache()
        cache.folder = folder.path
        let logger = Logger(label: "test")
        let sweeper = try #require(
            CacheSweeper.make(
                settings: cache,
                windowSeconds: 900,
                openFiles: OpenFileBudget(limit: 16),
                clock: FixedClock(date: TestApp.epoch),
                logger: logger,
                metrics: BackdropMetrics()
            )
        )
        let thread = sweeper.cache.thread
        // As the application lists them: the thread first, so that it stops last. Shutdown is asked for before the
        // group runs: it starts the services, then stops them in reverse order.
        let group = ServiceGroup(services: [thread, sweeper], logger: logger)
        // The loop's thread as the kernel names it: "PID/task/TID".
        let task = "/proc/" + (try await thread.loop.submit { try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") }.get())
        #expect(FileManager.default.fileExists(atPath: task), "the loop's thread runs")
        await group.triggerGracefulShutdown()
        try await group.run()
        #expect(!FileManager.default.fileExists(atPath: task), "the loop's thread has ended with the services")
    }
}
