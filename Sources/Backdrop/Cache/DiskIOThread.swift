import NIOCore
import NIOPosix

/// The thread the disk cache does its blocking file I/O on: an event loop of its own, used as the ``DiskCache`` actor's
/// executor, so that `open`, `read`, `write` and `readdir` never stall Swift's cooperative pool (one thread per core)
/// or the server's event loops.
final class DiskIOThread: Sendable {
    /// One thread for the process's disk caches: entries are small and the memory tier in front absorbs repeats.
    package static let shared = DiskIOThread()

    let loop: any EventLoop

    init() {
        self.loop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()
    }
}
