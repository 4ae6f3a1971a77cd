import NIOPosix
import Synchronization

/// The threads renders run on: `render.workers` of them, so that the scratch memory each render thread keeps (up to
/// about 48 MB of heap at the largest sizes) grows with the setting, not with the node's cores. One started pool per
/// size for the process's life, as NIO's own `NIOThreadPool.singleton` (the service uses one size; tests a few).
enum RenderThreads {
    private static let pools = Mutex<[Int: NIOThreadPool]>([:])

    static func pool(workers: Int) -> NIOThreadPool {
        self.pools.withLock { pools in
            if let pool = pools[workers] { return pool }
            let pool = NIOThreadPool(numberOfThreads: workers)
            pool.start()
            pools[workers] = pool
            return pool
        }
    }
}
