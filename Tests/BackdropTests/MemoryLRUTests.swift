import Synchronization
import Testing

@testable import Backdrop

@Suite("In-memory LRU")
struct MemoryLRUTests {
    @Test func evictsTheLeastRecentlyUsedWithinTheBudget() async {
        let cache = MemoryLRU<String, [UInt8]>(budget: 30) { $0.count }
        await cache.insert([UInt8](repeating: 1, count: 10), for: "a")
        await cache.insert([UInt8](repeating: 2, count: 10), for: "b")
        await cache.insert([UInt8](repeating: 3, count: 10), for: "c")
        #expect(await cache.cached("a") != nil)  // a is now more recent than b
        await cache.insert([UInt8](repeating: 4, count: 10), for: "d")
        #expect(await cache.cached("b") == nil)
        for key in ["a", "c", "d"] { #expect(await cache.cached(key) != nil) }
        #expect(await cache.totalCost == 30)
        await cache.insert([UInt8](repeating: 5, count: 31), for: "huge")  // larger than the budget: not kept
        #expect(await cache.cached("huge") == nil)
        #expect(await cache.totalCost == 30)
    }

    @Test func concurrentMissesComputeOnce() async throws {
        let cache = MemoryLRU<String, Int>(budget: 100) { _ in 1 }
        let calls = Counter()
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    try await cache.value(for: "k") {
                        calls.increment()
                        for await _ in release { break }  // hold the computation open until all others wait
                        return 42
                    }
                }
            }
            // The 99 others must all be parked on the one computation before it is allowed to finish.
            while await cache.waiterCount(for: "k") < 99 { await Task.yield() }
            releaseContinuation.yield()
            for try await value in group { #expect(value == 42) }
        }
        #expect(calls.value == 1)
    }

    @Test func failuresReachEveryWaiterAndAreNotCached() async throws {
        struct Boom: Error {}
        let cache = MemoryLRU<String, Int>(budget: 100) { _ in 1 }
        await #expect(throws: Boom.self) { try await cache.value(for: "k") { throw Boom() } }
        let value = try await cache.value(for: "k") { 7 }
        #expect(value == 7)
    }
}
