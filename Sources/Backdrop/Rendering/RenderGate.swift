import NIOPosix

/// Runs CPU-heavy image work on NIO's blocking thread pool (one thread per core), off the cooperative pool that
/// serves requests, and refuses work beyond a queue limit so memory stays bounded under overload.
public actor RenderGate {
    private let maxPending: Int
    private var pending = 0
    private let pool: NIOThreadPool

    public init(maxPending: Int, pool: NIOThreadPool = .singleton) {
        self.maxPending = maxPending
        self.pool = pool
    }

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard self.pending < self.maxPending else { throw RenderBusy() }
        self.pending += 1
        defer { self.pending -= 1 }
        return try await self.pool.runIfActive(work)
    }
}
