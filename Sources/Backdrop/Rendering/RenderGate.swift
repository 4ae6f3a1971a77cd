import NIOCore
import NIOPosix
import Synchronization
import Tracing

/// The render queue refused a job: the expected wait before it would start is over the budget. The photo is not at
/// fault: the request ends with a 503, and the photo stays in the line.
struct RenderBusy: NoFaultOfThePhoto {
    /// Seconds after which a retry can expect to be admitted.
    package let retryAfter: Int

    package init(retryAfter: Int = 1) {
        self.retryAfter = retryAfter
    }
}

/// Runs CPU-heavy image work on NIO's blocking thread pool (one thread per core), off the cooperative pool that serves
/// requests. Admission is by time, and service is by turns:
/// - each job carries an estimated cost (``RenderCosts``: per kind of work and per output megapixel, learned from the
///   jobs this machine ran); a job is refused with ``RenderBusy`` only when the wait expected before it starts (the
///   work left of running jobs, plus the queued jobs that will run before it) is over `maxWait`;
/// - queued jobs are served one client at a time, round-robin, so a client asking for many renders waits behind its
///   own queue. A client with nothing queued or running goes first, ahead of the round (as fq_codel serves new flows
///   before old ones), so a polite client waits only for the jobs running and other such newcomers, never for a
///   flooder's next job. The expected wait of a new job counts the same order, which is why the flooding client is
///   refused long before a polite one.
/// A waiting job whose request is cancelled (its client went, or its deadline passed) leaves the queue at once.
/// `maxJobs` bounds the queue's length whatever the estimates say.
final class RenderGate: Sendable {
    private let workers: Int
    private let maxWait: Duration
    private let maxJobs: Int
    private let pool: NIOThreadPool
    private let state: Mutex<State>
    private let metrics: BackdropMetrics?

    /// `pool` defaults to the process's pool of `workers` threads (``RenderThreads``); `metrics` shows the queue.
    package init(
        maxWait: Duration,
        maxJobs: Int,
        workers: Int = NIOCore.System.coreCount,
        pool: NIOThreadPool? = nil,
        metrics: BackdropMetrics? = nil
    ) {
        self.workers = max(1, workers)
        self.maxWait = maxWait
        self.maxJobs = max(1, maxJobs)
        self.pool = pool ?? RenderThreads.pool(workers: self.workers)
        self.state = Mutex(State())
        self.metrics = metrics
    }

    /// Publishes the queue's length and the jobs running (`backdrop_render_jobs{state}`), under the lock that changed
    /// them, so that the gauges never go back to an older state.
    private func publish(_ state: borrowing State) {
        self.metrics?.renderJobs(queued: state.queued, running: state.running.count)
    }

    /// Runs `body` on the pool once admitted and its turn has come; throws ``RenderBusy`` when the queue is too long
    /// for it, `CancellationError` when its task is cancelled while it waits. A job that `continues` one admitted
    /// moments ago (a render's encode after the prepare it made or waited for) is not tested again: it takes its turn,
    /// so that a render is refused whole, before any of its work, or not at all.
    func run<T: Sendable>(
        _ work: RenderWork,
        pixels: Int,
        client: RequestClient,
        continues: Bool = false,
        _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        let (id, cost) = self.state.withLock { state in
            state.nextID += 1
            return (state.nextID, state.costs.estimate(work, pixels: pixels))
        }
        let queued = ContinuousClock.now
        let queuedAt = DefaultTracerClock.now
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let decided: Result<Void, any Error>? = self.state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.running.count < self.workers, state.queued == 0 {
                        state.running[id] = Running(client: client, started: ContinuousClock.now, cost: cost)
                        self.publish(state)
                        return .success(())
                    }
                    let wait = state.expectedWait(for: client, workers: self.workers)
                    if !continues, wait > self.maxWait || state.queued + state.running.count >= self.maxJobs {
                        return .failure(RenderBusy(retryAfter: max(1, Int(total: (wait / .seconds(1)).rounded(.up)))))
                    }
                    state.enqueue(Job(id: id, client: client, cost: cost, continuation: continuation))
                    self.publish(state)
                    return nil
                }
                if let decided { continuation.resume(with: decided) }
            }
        } onCancel: {
            self.state.withLock { state in
                defer { self.publish(state) }
                return state.removeQueued(id)
            }?.resume(throwing: CancellationError())
        }
        let started = ContinuousClock.now
        if started - queued >= .milliseconds(1), RequestTrace.current != nil {
            // The wait for a worker, as a span of its own beside the work (a request that found one free has none).
            let span = startSpan("render.queue", at: queuedAt)
            span.attributes["backdrop.work"] = "\(work)"
            span.end()
        }
        defer {
            let elapsed = ContinuousClock.now - started
            let next = self.state.withLock { state in
                state.running[id] = nil
                state.costs.learn(work, pixels: pixels, took: elapsed)
                defer { self.publish(state) }
                return state.dispatch(workers: self.workers)
            }
            for job in next { job.resume() }
        }
        let large = pixels >= Self.largeJob
        return try await self.pool.runIfActive {
            defer { if large { MallocTuning.returnFreeMemory() } }
            return try body()
        }
    }

    /// Jobs this large (output pixels) hand their freed memory back to the system when done (``MallocTuning``).
    static let largeJob = 1_000_000

    /// Jobs queued and running now (for tests and metrics).
    var load: (queued: Int, running: Int) {
        self.state.withLock { ($0.queued, $0.running.count) }
    }

    struct Job {
        let id: UInt64
        let client: RequestClient
        let cost: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    struct Running {
        let client: RequestClient
        let started: ContinuousClock.Instant
        let cost: Duration
    }

    /// The queue: a FIFO per client, and the clients with queued jobs in their turn order: newcomers (clients that
    /// had nothing queued or running when their job came) first, then the round.
    struct State {
        var nextID: UInt64 = 0
        var costs = RenderCosts()
        var running = [UInt64: Running]()
        var queues = [RequestClient: CircularBuffer<Job>]()
        var newcomers = CircularBuffer<RequestClient>()
        var turns = CircularBuffer<RequestClient>()
        var queuedCost = [RequestClient: Duration]()
        var queued = 0

        /// Whether `client` has nothing queued or running: its next job goes ahead of the round.
        func isNewcomer(_ client: RequestClient) -> Bool {
            self.queues[client] == nil && !self.running.values.contains { $0.client == client }
        }

        mutating func enqueue(_ job: Job) {
            if self.isNewcomer(job.client) {
                self.newcomers.append(job.client)
            } else if self.queues[job.client] == nil {
                self.turns.append(job.client)
            }
            self.queues[job.client, default: []].append(job)
            self.queuedCost[job.client, default: .zero] += job.cost
            self.queued += 1
        }

        /// Takes a waiting job out of the queue (its task was cancelled); nil when it has started or gone already.
        mutating func removeQueued(_ id: UInt64) -> CheckedContinuation<Void, any Error>? {
            for client in self.queues.keys {
                if let job = self.take(from: client, where: { $0.id == id }) { return job.continuation }
            }
            return nil
        }

        /// Starts queued jobs, newcomers first, then one client at a time, while a worker is free; returns them to be
        /// resumed outside the lock.
        mutating func dispatch(workers: Int) -> [CheckedContinuation<Void, any Error>] {
            var started = [CheckedContinuation<Void, any Error>]()
            while self.running.count < workers, let client = self.newcomers.popFirst() ?? self.turns.popFirst(),
                let job = self.take(from: client, where: { _ in true })
            {
                if self.queues[client] != nil { self.turns.append(client) }  // more of its jobs wait: its next turn
                self.running[job.id] = Running(client: client, started: ContinuousClock.now, cost: job.cost)
                started.append(job.continuation)
            }
            return started
        }

        /// The first job of `client` that `matches`, taken out of the queue and its books.
        private mutating func take(from client: RequestClient, where matches: (Job) -> Bool) -> Job? {
            guard var queue = self.queues[client], let index = queue.firstIndex(where: matches) else { return nil }
            let job = queue.remove(at: index)
            self.queued -= 1
            self.queuedCost[client, default: .zero] -= job.cost
            if queue.isEmpty {
                self.forget(client)
            } else {
                self.queues[client] = queue
            }
            return job
        }

        private mutating func forget(_ client: RequestClient) {
            self.queues[client] = nil
            self.queuedCost[client] = nil
            if let index = self.turns.firstIndex(of: client) { self.turns.remove(at: index) }
            if let index = self.newcomers.firstIndex(of: client) { self.newcomers.remove(at: index) }
        }

        /// How long a new job of `client` would wait before it starts: the work left of the running jobs, then for a
        /// newcomer the first job of each newcomer before it; for any other client its own queue and of each other
        /// client about as many jobs as `client` has queued plus one (their turns before the new job's); all shared by
        /// the workers.
        func expectedWait(for client: RequestClient, workers: Int) -> Duration {
            let now = ContinuousClock.now
            var work = Duration.zero
            for job in self.running.values {
                work += max(.zero, job.cost - (now - job.started))
            }
            if self.isNewcomer(client) {
                for other in self.newcomers {
                    work += self.queues[other]?.first?.cost ?? .zero
                }
                return work / workers
            }
            let ahead = (self.queues[client]?.count ?? 0) + 1
            for (other, queue) in self.queues {
                let total = self.queuedCost[other] ?? .zero
                work += other == client ? total : total * (Double(min(queue.count, ahead)) / Double(queue.count))
            }
            return work / workers
        }
    }
}
