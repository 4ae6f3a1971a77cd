import NIOCore
import NIOPosix
import ServiceLifecycle

/// The thread the disk cache does its blocking file I/O on: an event loop of its own, used as the ``DiskCache`` actor's
/// executor, so that `open`, `read`, `write` and `readdir` never stall Swift's cooperative pool (one thread per core)
/// or the server's event loops.
///
/// A service, so that the thread ends with the rest of the application: listed before the cache's other parts, it
/// stops after them and shuts its loop down. A thread whose application never ran (tests that route without a server)
/// ends when the last cache on it is released.
final class DiskIOThread: Service, Sendable {
    private let group: MultiThreadedEventLoopGroup
    let loop: any EventLoop

    init() {
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.loop = self.group.next()
    }

    deinit {
        self.group.shutdownGracefully { _ in }
    }

    func run() async throws {
        try? await gracefulShutdown()
        try await self.group.shutdownGracefully()
    }
}
