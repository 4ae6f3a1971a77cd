import NIOCore
import NIOPosix
import Synchronization
import Tracing

/// What a job on the render pool does, for its cost estimate (``RenderCosts``).
enum RenderWork: Hashable, Sendable {
    /// Decode the source photo and cover-crop it (a full render's first half).
    case prepare
    /// Blend and encode from prepared images (a re-blend at a new `blur`, or a full render's second half).
    case encode(OutputFormat)
    /// The blurred preview of `/background.json`.
    case preview
}

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
///   own queue while another client's job waits for about one job of each other client. The expected wait of a new
///   job counts the same order, which is why the flooding client is refused long before a polite one.
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
                        state.running[id] = (ContinuousClock.now, cost)
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

    /// The queue: a FIFO per client, and the clients with queued jobs in their turn order.
    struct State {
        var nextID: UInt64 = 0
        var costs = RenderCosts()
        var running = [UInt64: (started: ContinuousClock.Instant, cost: Duration)]()
        var queues = [RequestClient: CircularBuffer<Job>]()
        var turns = CircularBuffer<RequestClient>()
        var queuedCost = [RequestClient: Duration]()
        var queued = 0

        mutating func enqueue(_ job: Job) {
            if self.queues[job.client] == nil { self.turns.append(job.client) }
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

        /// Starts queued jobs, one client at a time, while a worker is free; returns them to be resumed outside the lock.
        mutating func dispatch(workers: Int) -> [CheckedContinuation<Void, any Error>] {
            var started = [CheckedContinuation<Void, any Error>]()
            while self.running.count < workers, let client = self.turns.popFirst(), let job = self.take(from: client, where: { _ in true }) {
                if self.queues[client] != nil { self.turns.append(client) }  // more of its jobs wait: its next turn
                self.running[job.id] = (ContinuousClock.now, job.cost)
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
        }

        /// How long a new job of `client` would wait before it starts: the work left of the running jobs, `client`'s
        /// own queue, and of each other client about as many jobs as `client` has queued plus one (their turns before
        /// the new job's), all shared by the workers.
        func expectedWait(for client: RequestClient, workers: Int) -> Duration {
            let now = ContinuousClock.now
            var work = Duration.zero
            for (started, cost) in self.running.values {
                work += max(.zero, cost - (now - started))
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

/// Estimated cost of render jobs: per kind of work, a fixed part and a part per output megapixel, the latter an
/// exponentially weighted mean of what this machine measured (starting from figures measured on the bench machine's
/// release build).
struct RenderCosts {
    /// Every job's fixed part: scheduling, buffers, the encoder's set-up.
    static let fixed = Duration.microseconds(300)
    /// Jobs smaller than this teach nothing about the cost per megapixel (their fixed part dominates).
    static let learnedFromMegapixels = 0.05
    static let weight = 0.2

    private var secondsPerMegapixel: [RenderWork: Double] = [
        .prepare: 0.016, .preview: 0.004,
        .encode(.png): 0.018, .encode(.jpeg): 0.022, .encode(.webp): 0.032, .encode(.avif): 0.050,
    ]

    func estimate(_ work: RenderWork, pixels: Int) -> Duration {
        Self.fixed + .seconds((self.secondsPerMegapixel[work] ?? 0.05) * Double(pixels) / 1_000_000)
    }

    mutating func learn(_ work: RenderWork, pixels: Int, took: Duration) {
        let megapixels = Double(pixels) / 1_000_000
        guard megapixels >= Self.learnedFromMegapixels else { return }
        let measured = max(0, (took - Self.fixed) / .seconds(1)) / megapixels
        let old = self.secondsPerMegapixel[work] ?? measured
        self.secondsPerMegapixel[work] = old + Self.weight * (measured - old)
    }
}
