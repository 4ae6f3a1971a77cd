import Foundation
import Synchronization
import Testing

@testable import Backdrop

enum Fixtures {
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
        return try [UInt8](Data(contentsOf: url))
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let stockFolder = repositoryRoot.appendingPathComponent("StockPhotos")

    /// Test photos that were stock photos once (Fixtures/photos/README.md).
    static let photoFolder = repositoryRoot.appendingPathComponent("Tests/BackdropTests/Fixtures/photos")

    /// Photo `number` (a shipped stock photo, else a test photo that was one), cover-cropped to 640x1136 (320x568
    /// without `retina`): test images of the sizes the tests were written for.
    /// Made once per process: many tests use the same few.
    static func stockPhoto(_ number: Int, retina: Bool = true) throws -> RGBImage {
        if let made = Self.stockPhotos.withLock({ $0["\(number)/\(retina)"] }) { return made }
        let prefix = String(format: "%03d-", number)
        let found = [stockFolder, photoFolder].lazy.compactMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                .first { $0.hasPrefix(prefix) && $0.hasSuffix(".jpg") }
                .map { folder.appendingPathComponent($0) }
        }.first
        let url = try #require(found, "no photo \(number)")
        let size = retina ? PixelSize(width: 640, height: 1136) : PixelSize(width: 320, height: 568)
        let image = try JPEGDecoder.decode([UInt8](Data(contentsOf: url)), covering: size)
        let made = CoverCrop.apply(image, to: size)
        Self.stockPhotos.withLock { $0["\(number)/\(retina)"] = made }
        return made
    }

    private static let stockPhotos = Mutex<[String: RGBImage]>([:])

    /// A scratch folder removed when the returned closure runs.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("backdrop-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Peak signal-to-noise ratio in dB between two images of one size.
func psnr(_ a: RGBImage, _ b: RGBImage) -> Double { a.psnr(against: b) }

func solid(_ width: Int, _ height: Int, _ rgb: (UInt8, UInt8, UInt8)) -> RGBImage {
    var pixels = [UInt8]()
    pixels.reserveCapacity(width * height * 3)
    for _ in 0..<(width * height) { pixels += [rgb.0, rgb.1, rgb.2] }
    return RGBImage(width: width, height: height, pixels: pixels)
}

func near(_ p: (r: UInt8, g: UInt8, b: UInt8), _ q: (Int, Int, Int), tolerance: Int = 12) -> Bool {
    abs(Int(p.r) - q.0) <= tolerance && abs(Int(p.g) - q.1) <= tolerance && abs(Int(p.b) - q.2) <= tolerance
}

struct FixedClock: WallClock {
    let date: Date
    func now() -> Date { self.date }
}

/// A thread-safe count, shareable between tasks.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { self.count.withLock { $0 += 1 } }
    var value: Int { self.count.withLock { $0 } }
}

/// A wait in a test that ran out of time: what it waited for.
struct WaitTimedOut: Error, CustomStringConvertible {
    let description: String
}

/// Waits until `condition` holds, yielding between checks, for at most `limit`: a generous deadline whose failure means
/// a hang, not slowness.
func waitUntil(_ what: String, limit: Duration = .seconds(30), _ condition: () async -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while await !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimedOut(description: "waited \(limit) for \(what)") }
        await Task.yield()
    }
}

/// Runs `body` while the test holds the thread of the process's one-thread render pool (``RenderThreads``, which a
/// server with `render.workers` 1 renders on): a render admitted meanwhile counts as running and waits, and later ones
/// queue behind it, until `body` calls `release` (or ends; or a minute passes). Requests made to overlap, not hoped to.
/// Tests that hold the thread take turns (``RenderThreadTurns``): one never waits for the thread behind another's
/// queue of renders, which on a loaded machine can take longer than any fair wait.
func withRenderThreadHeld<T: Sendable>(_ body: (_ release: @escaping @Sendable () -> Void) async throws -> T) async throws -> T {
    try await RenderThreadTurns.shared.take(limit: .seconds(60))
    defer { RenderThreadTurns.shared.give() }
    let latch = AdmissionTests.Latch()
    let holding = Counter()
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            try await RenderThreads.pool(workers: 1).runIfActive {
                holding.increment()
                latch.wait()
            }
        }
        do {
            try await waitUntil("the test to hold the render thread", limit: .seconds(20)) { holding.value == 1 }
            let result = try await body(latch.release)
            latch.release()
            try await group.waitForAll()
            return result
        } catch {
            latch.release()  // a failed test lets the held jobs go
            throw error
        }
    }
}

/// One test at a time holds the one-thread render pool: a turn is taken by checking every 10 ms, for at most `limit`
/// (the tests before it in line end within their own bounded waits).
final class RenderThreadTurns: Sendable {
    static let shared = RenderThreadTurns()
    private let taken = Mutex(false)

    func take(limit: Duration) async throws {
        let deadline = ContinuousClock.now + limit
        while !self.taken.withLock({ taken in
            let free = !taken
            taken = true
            return free
        }) {
            guard ContinuousClock.now < deadline else { throw WaitTimedOut(description: "waited \(limit) for a turn to hold the render thread") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func give() { self.taken.withLock { $0 = false } }
}

/// The gauge `backdrop_render_jobs{state="…"}` (`queued` or `running`) in a /metrics text; 0 when it is absent.
func renderJobs(_ state: String, in metrics: String) -> Int {
    let line = metrics.split(separator: "\n").first { $0.hasPrefix("backdrop_render_jobs{state=\"\(state)\"} ") }
    return line.flatMap { Double($0.split(separator: " ")[1]) }.map(Int.init) ?? 0
}

extension PhotoRanking {
    /// The ranking for a portrait screen, the class the tests written before classes assume.
    init(phase: SunPhase) { self.init(phase: phase, shape: .portrait) }

    /// The candidates' indices, best first, at most ``perOwner`` of one owner before every other owner's.
    func rank(_ candidates: [RankingCandidate]) -> [Int] {
        let (first, later, _) = self.ranked(candidates)
        return first + later
    }
}

extension MemoryLRU {
    /// Callers waiting for a computation of `key` in progress.
    func waiterCount(for key: Key) -> Int { self.waiting[key]?.count ?? 0 }
}
