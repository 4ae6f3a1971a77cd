import Foundation
import HTTPTypes
import NIOPosix
import Synchronization
import Testing

@testable import Backdrop

/// The render queue's admission by expected wait and its turns by client, how clients are told apart, and how a
/// replica waits on another's lease.
@Suite("Admission and fairness")
struct AdmissionTests {
    static let pixels = 640 * 1136

    /// What ran, in order.
    final class Recorder: Sendable {
        let items = Mutex([String]())
        func append(_ item: String) { self.items.withLock { $0.append(item) } }
        var all: [String] { self.items.withLock { $0 } }
    }

    /// PNG encodes of `pixels` offered to a gate one at a time, each queued or refused at once.
    final class Attempts {
        let gate: RenderGate
        let pixels: Int
        private var queued = [Task<Void, any Error>]()

        init(_ gate: RenderGate, pixels: Int) {
            self.gate = gate
            self.pixels = pixels
        }

        /// Whether a job of `client` was queued (true) or refused at once with ``RenderBusy`` (false).
        func callAsFunction(_ client: String) async throws -> Bool {
            let (gate, pixels) = (self.gate, self.pixels)
            let before = gate.load.queued
            let finished = Counter()
            let job = Task {
                defer { finished.increment() }
                _ = try await gate.run(.encode(.png), pixels: pixels, client: RequestClient(client)) {}
            }
            try await waitUntil("\(client)'s job to queue or be refused") { gate.load.queued != before || finished.value != 0 }
            if gate.load.queued > before {
                self.queued.append(job)
                return true
            }
            await #expect(throws: RenderBusy.self) { try await job.value }
            return false
        }

        /// Waits for the queued jobs to end (once the gate's held job is released).
        func finish() async throws {
            for job in self.queued { try await job.value }
        }
    }

    @Test func jobsAreServedOneClientAtATimeNewcomersFirst() async throws {
        let pool = Fixtures.pool()
        let gate = RenderGate(maxWait: .seconds(60), maxJobs: 100, workers: 1, pool: pool)
        let latch = Latch()
        defer { latch.release() }  // a failed wait lets the held jobs go
        let order = Recorder()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                _ = try await gate.run(.encode(.png), pixels: Self.pixels, client: RequestClient("flood")) {
                    latch.wait()
                    order.append("flood0")
                }
            }
            try await waitUntil("the flood's first job to run") { gate.load.running > 0 }
            // While its first job runs, the flooder queues four more, another client three, then the polite client
            // one. The other client's first job and the polite one came with nothing of theirs queued or running:
            // they run first, in the order they came; then the flood and the other client take turns.
            for (client, jobs) in [("flood", 1...4), ("other", 0...2), ("polite", 0...0)] {
                for index in jobs {
                    let queued = gate.load.queued
                    group.addTask {
                        _ = try await gate.run(.encode(.png), pixels: Self.pixels, client: RequestClient(client)) {
                            order.append("\(client)\(index)")
                        }
                    }
                    try await waitUntil("\(client) job \(index) to queue") { gate.load.queued > queued }
                }
            }
            latch.release()
            try await group.waitForAll()
        }
        let served = order.all
        let expected = ["flood0", "other0", "polite0", "flood1", "other1", "flood2", "other2", "flood3", "flood4"]
        #expect(served == expected, "each client's jobs in their order, newcomers first, then by turns: \(served)")
    }

    @Test func aNewcomersWaitCountsOnlyTheJobsRunningAndNewcomersBeforeIt() async throws {
        let pool = Fixtures.pool()
        // Every job here is estimated at 0.3 ms + 5,000 MP x 18 ms: 90 s, against a 100-s budget, so that the
        // verdicts hold however long a busy machine takes between the held job's start and the last attempt (up to
        // 80 s; with 0.9-s jobs and a 1-s budget, a CI run under load took the 0.8 s that let the last one in).
        let gate = RenderGate(maxWait: .seconds(100), maxJobs: 1000, workers: 1, pool: pool)
        let latch = Latch()
        defer { latch.release() }  // a failed wait lets the held jobs go
        // The flood's first job runs, held.
        let big = 5_000_000_000
        let holder = Task { try await gate.run(.encode(.png), pixels: big, client: RequestClient("flood")) { latch.wait() } }
        try await waitUntil("the first job to run") { gate.load.running > 0 }
        let attempt = Attempts(gate, pixels: big)
        #expect(try await attempt("flood"), "the flood's next job waits for the one running: queued")
        #expect(try await !attempt("flood"), "and the one after waits for that one too: refused")
        // In the round, the polite client would wait for the running job and the flood's queued one: 180 s, refused.
        // It has nothing queued or running: it waits for the running job only.
        #expect(try await attempt("polite"), "the polite client waits for the running job, not for the flood's next")
        #expect(try await !attempt("late"), "a second newcomer waits for the first newcomer's job too: refused")
        latch.release()
        try await holder.value
        try await attempt.finish()
    }

    @Test func admissionIsByExpectedWaitAndCountsTheClientsOwnQueue() async throws {
        let pool = Fixtures.pool()
        // A 640x1136 PNG encode is estimated at about 13 ms before anything is learned: a 100-ms budget admits a queue
        // of eight of them.
        let gate = RenderGate(maxWait: .milliseconds(100), maxJobs: 1000, workers: 1, pool: pool)
        let latch = Latch()
        defer { latch.release() }  // a failed wait lets the held jobs go
        let holder = Task { try await gate.run(.prepare, pixels: 100, client: RequestClient("first")) { latch.wait() } }
        try await waitUntil("the first job to run") { gate.load.running > 0 }
        let attempt = Attempts(gate, pixels: Self.pixels)
        var flood = [Bool]()
        for _ in 0..<20 { flood.append(try await attempt("flood")) }
        #expect(flood == Array(repeating: true, count: 8) + Array(repeating: false, count: 12), "\(flood)")
        #expect(try await attempt("polite"), "the polite client's job waits for one of the flood's, not eight")
        latch.release()
        try await holder.value
        try await attempt.finish()
    }

    @Test func retryAfterIsTheExpectedWaitRoundedUp() async throws {
        let pool = Fixtures.pool()
        let gate = RenderGate(maxWait: .seconds(2), maxJobs: 1000, workers: 1, pool: pool)
        let latch = Latch()
        defer { latch.release() }  // a failed wait lets the held jobs go
        let holder = Task { try await gate.run(.prepare, pixels: 100, client: RequestClient("first")) { latch.wait() } }
        try await waitUntil("the first job to run") { gate.load.running > 0 }
        // Each queued job is estimated at 0.3 ms + 50 MP x 18 ms: 0.9003 s. Three fit in the 2-s budget; the fourth
        // would wait 2.7 s behind them (plus what is left of the first job's 0.3 ms), so it is refused with 3.
        let big = 50_000_000
        let each = RenderCosts().estimate(.encode(.png), pixels: big)
        var queued = [Task<Void, any Error>]()
        for index in 0..<3 {
            queued.append(Task { _ = try await gate.run(.encode(.png), pixels: big, client: RequestClient("flood")) {} })
            try await waitUntil("flood job \(index) to queue") { gate.load.queued == index + 1 }
        }
        let refused = await #expect(throws: RenderBusy.self) {
            try await gate.run(.encode(.png), pixels: big, client: RequestClient("flood")) {}
        }
        let expected = Int(((each * 3) / .seconds(1)).rounded(.up))
        #expect(expected == 3 && refused?.retryAfter == expected, "Retry-After \(refused?.retryAfter ?? 0), expected wait \(each * 3)")
        // Another client waits for one of the flood's jobs, not three: admitted.
        queued.append(Task { _ = try await gate.run(.encode(.png), pixels: big, client: RequestClient("polite")) {} })
        try await waitUntil("the polite job to queue") { gate.load.queued == 4 }
        latch.release()
        try await holder.value
        for job in queued { try await job.value }
    }

    @Test func theCostModelLearnsThisMachinesTimes() async throws {
        var costs = RenderCosts()
        let megapixel = 1_000_000
        func near(_ a: Duration, _ b: Duration) -> Bool { abs((a - b) / .seconds(1)) < 1e-9 }
        #expect(near(costs.estimate(.encode(.png), pixels: megapixel), .microseconds(300) + .milliseconds(18)))
        for _ in 0..<40 { costs.learn(.encode(.png), pixels: megapixel, took: .microseconds(300) + .milliseconds(100)) }
        let learned = costs.estimate(.encode(.png), pixels: megapixel)
        #expect(learned > .milliseconds(100) && learned < .milliseconds(101), "\(learned)")
        #expect(near(costs.estimate(.encode(.jpeg), pixels: megapixel), .microseconds(300) + .milliseconds(22)), "each kind of work alone")
        costs.learn(.preview, pixels: 1000, took: .seconds(10))
        #expect(near(costs.estimate(.preview, pixels: megapixel), .microseconds(300) + .milliseconds(4)), "tiny jobs teach nothing")

        // Through the gate: jobs of 1 MP that take 100 ms here make the next ones' expected wait count 100 ms each,
        // so a 450-ms budget admits five behind a running job instead of the 25 the first estimate (18 ms) would.
        let pool = Fixtures.pool()
        let gate = RenderGate(maxWait: .milliseconds(450), maxJobs: 1000, workers: 1, pool: pool)
        for _ in 0..<12 {
            try await gate.run(.encode(.png), pixels: megapixel, client: RequestClient("a")) { usleep(100_000) }  // the work
        }
        let latch = Latch()
        defer { latch.release() }  // a failed wait lets the held jobs go
        let holder = Task { try await gate.run(.prepare, pixels: 100, client: RequestClient("first")) { latch.wait() } }
        try await waitUntil("the holding job to run") { gate.load.running > 0 }
        var queued = [Task<Void, any Error>]()
        while queued.count < 30 {
            let finished = Counter()
            let job = Task {
                defer { finished.increment() }
                _ = try await gate.run(.encode(.png), pixels: megapixel, client: RequestClient("b")) {}
            }
            try await waitUntil("a job to queue or be refused") { gate.load.queued > queued.count || finished.value != 0 }
            guard gate.load.queued > queued.count else { break }
            queued.append(job)
        }
        // At 100 ms a job, five fit; a loaded machine makes each job take longer (the gate learns the wall time it waited
        // for, resumption included), so fewer may. The first estimate, never corrected, admits 25.
        #expect((1...5).contains(queued.count), "\(queued.count) jobs admitted")
        latch.release()
        try await holder.value
        for job in queued { try await job.value }
    }

    @Test func aRenderAdmittedAtItsPrepareIsNotRefusedAtItsEncode() async throws {
        let pool = Fixtures.pool()
        let gate = RenderGate(maxWait: .milliseconds(100), maxJobs: 1000, workers: 1, pool: pool)
        let renderer = Renderer(encoders: EncoderSettings(), limits: DecodeLimits(), memoryBudget: 64 << 20, gate: gate)
        let (holding, flooding) = (Latch(), Latch())
        defer {  // a failed wait lets the held jobs go
            holding.release()
            flooding.release()
        }
        let photo = try Fixtures.bytes("flickr-photo.jpg")
        let spec = RenderSpec(size: PixelSize(width: 640, height: 1136), style: .light, blurHundredths: 50)
        let holder = Task { try await gate.run(.prepare, pixels: 100, client: RequestClient("first")) { holding.wait() } }
        try await waitUntil("the first job to run") { gate.load.running > 0 }
        let render = Task {
            try await renderer.render(
                Fixtures.photo,
                load: { _, _ in EncodedImage(bytes: photo, variant: "fixture") },
                spec: spec,
                for: RequestClient("render")
            )
        }
        try await waitUntil("the render's prepare to queue") { gate.load.queued == 1 }
        // Another client's job, estimated at 0.9 s, is admitted behind the prepare and holds the thread after it: the
        // encode that follows the prepare would wait for it, past the 100-ms budget. It was admitted with its prepare.
        let flood = Task {
            try await gate.run(.encode(.png), pixels: 50_000_000, client: RequestClient("flood")) { flooding.wait() }
        }
        try await waitUntil("the other client's job to queue") { gate.load.queued == 2 }
        holding.release()
        try await waitUntil("the render's encode to queue behind the other job, or the render to end") {
            gate.load.queued == 1 || gate.load.running == 0
        }
        flooding.release()
        let image = try await render.value
        #expect(try decodeImage(Array(image.readableBytesView), as: .png).width == 640)
        try await holder.value
        try await flood.value
        // The prepared photo is in memory now: a render of it has one job, its encode, tested as any other.
        let blocking = Latch()
        defer { blocking.release() }
        let blocker = Task {
            try await gate.run(.encode(.png), pixels: 50_000_000, client: RequestClient("flood")) { blocking.wait() }
        }
        try await waitUntil("the other client's next job to run") { gate.load.running > 0 }
        await #expect(throws: RenderBusy.self, "a re-blend waits for no prepare of its own: refused past the budget") {
            try await renderer.render(
                Fixtures.photo,
                load: { _, _ in EncodedImage(bytes: photo, variant: "fixture") },
                spec: spec,
                for: RequestClient("again")
            )
        }
        blocking.release()
        try await blocker.value
    }

    @Test func aWaitingJobWhoseTaskIsCancelledLeavesTheQueue() async throws {
        let pool = Fixtures.pool()
        let gate = RenderGate(maxWait: .seconds(60), maxJobs: 100, workers: 1, pool: pool)
        let latch = Latch()
        defer { latch.release() }  // a failed wait lets the held jobs go
        let ran = Counter()
        let holder = Task { try await gate.run(.prepare, pixels: 100, client: RequestClient("a")) { latch.wait() } }
        try await waitUntil("the first job to run") { gate.load.running > 0 }
        let waiting = Task { try await gate.run(.prepare, pixels: 100, client: RequestClient("b")) { ran.increment() } }
        try await waitUntil("a job to queue") { gate.load.queued > 0 }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(gate.load.queued == 0)
        latch.release()
        try await holder.value
        #expect(ran.value == 0)
    }

    @Test func theRenderQueueBoundIsGenerousUnlessSet() {
        #expect(Settings().render.maxQueueWait == .milliseconds(1000))
        #expect(Settings().render.effectiveMaxPending >= 1000, "only the expected wait decides for real renders")
        var settings = Settings()
        settings.render.maxPending = 5
        #expect(settings.render.effectiveMaxPending == 5)
    }

    @Test(
        "trusted proxy settings",
        arguments: [
            ("127.0.0.1", true), ("10.0.0.0/8", true), ("fd00::/8", true), ("::1", true), ("10.0.0.0/33", false), ("10.0.0.0/", false),
            ("localhost", false), ("10.0.0.0/8/8", false), ("", false), ("1.2.3.4/+8", false),
        ]
    )
    func trustedProxySettings(_ text: String, valid: Bool) throws {
        #expect((IPRange(text) != nil) == valid)
        let json = #"{"server": {"trustedProxies": ["\#(text)"]}}"#
        if valid {
            #expect(try Settings.parse(Data(json.utf8)).server.trustedProxies == [try #require(IPRange(text))])
        } else {
            #expect { try Settings.parse(Data(json.utf8)) } throws: { "\($0)".contains("server.trustedProxies") }
        }
    }
}
