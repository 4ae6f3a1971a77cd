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
            try await waitUntil("99 callers parked on the computation") { await cache.waiterCount(for: "k") >= 99 }
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

    @Test func theEntryCapEvictsTheOldestWhateverTheirCost() async {
        let cache = MemoryLRU<Int, Int>(budget: 1_000_000, maxEntries: 3) { _ in 1 }
        for key in 0..<5 { await cache.insert(key, for: key) }
        #expect(await cache.count == 3)
        #expect(await cache.cached(1) == nil)
        #expect(await cache.cached(2) == 2)
        #expect(await cache.cached(4) == 4)
    }

    /// The ordering behind every cache, against a plain array kept in the same order, through random operations.
    @Test func theIndexKeepsLeastRecentlyUsedOrderInEveryOperation() {
        var index = LRUIndex<Int, String>()
        var model = [Int]()  // least recent first
        var generator = SeededGenerator(seed: 45)  // fixed, so that a failure replays
        for step in 0..<5000 {
            let key = Int.random(in: 0..<50, using: &generator)
            switch step % 5 {
            case 0, 1:
                index.set("v\(key)", for: key)
                model.removeAll { $0 == key }
                model.append(key)
            case 2:
                let found = index.touch(key)
                #expect((found != nil) == model.contains(key))
                if found != nil {
                    model.removeAll { $0 == key }
                    model.append(key)
                }
            case 3:
                #expect((index.remove(key) != nil) == model.contains(key))
                model.removeAll { $0 == key }
            default:
                if Bool.random(using: &generator) {
                    let oldest = index.removeOldest()
                    #expect(oldest?.key == model.first)
                    if !model.isEmpty { model.removeFirst() }
                } else if !model.contains(key) {
                    index.set("old\(key)", for: key, asOldest: true)
                    model.insert(key, at: 0)
                }
            }
            #expect(index.count == model.count)
            #expect(index.oldest?.key == model.first)
        }
        var drained = [Int]()
        while let oldest = index.removeOldest() { drained.append(oldest.key) }
        #expect(drained == model)
        #expect(index.isEmpty && index.entries.isEmpty)
    }
}
