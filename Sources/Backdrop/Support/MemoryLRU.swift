/// A least-recently-used cache bounded in bytes and in entries, whose concurrent misses for one key share one
/// computation. Every lookup, insertion and eviction takes constant time (``LRUIndex``).
///
/// Waiting is cancellable: a waiter whose task is cancelled (its request's deadline passed) leaves at once. When the
/// caller computing a value is cancelled, the computation is not wasted on the others' errors: one of the waiters takes
/// it over.
actor MemoryLRU<Key: Hashable & Sendable, Value: Sendable> {
    private struct Entry {
        let value: Value
        let cost: Int
    }

    private let budget: Int
    private let maxEntries: Int
    private let cost: @Sendable (Value) -> Int
    private var entries = LRUIndex<Key, Entry>()
    /// Callers waiting for a computation in progress, by key.
    private(set) var waiting = [Key: [OneShot<Value>]]()
    package private(set) var totalCost = 0

    /// At most `budget` in the units `cost` counts, and at most `maxEntries` entries.
    package init(budget: Int, maxEntries: Int = .max, cost: @escaping @Sendable (Value) -> Int) {
        self.budget = budget
        self.maxEntries = max(1, maxEntries)
        self.cost = cost
    }

    package var count: Int { self.entries.count }

    package func cached(_ key: Key) -> Value? {
        self.entries.touch(key)?.value
    }

    /// The cached value, or the one `make` produces. While `make` runs for a key, other callers for that key wait
    /// for its result instead of computing it again.
    package func value(for key: Key, make: @Sendable () async throws -> Value) async throws -> Value {
        while true {
            if let value = self.cached(key) { return value }
            guard self.waiting[key] != nil else { break }
            let waiter = OneShot<Value>()
            self.waiting[key, default: []].append(waiter)
            do {
                return try await waiter.wait()
            } catch is Abandoned {
                continue  // the computing caller left: compute it here, unless another waiter already does
            }
        }
        self.waiting[key] = []
        let result: Result<Value, any Error>
        do {
            result = .success(try await make())
        } catch {
            result = .failure(error)
        }
        let waiters = self.waiting.removeValue(forKey: key) ?? []
        if case .success(let value) = result { self.insert(value, for: key) }
        if case .failure(let error) = result, error is CancellationError || Task.isCancelled {
            // This caller was cancelled, not the computation's fault: the next waiter takes it over.
            for waiter in waiters { waiter.resume(with: .failure(Abandoned())) }
        } else {
            for waiter in waiters { waiter.resume(with: result) }
        }
        return try result.get()
    }

    /// The computing caller was cancelled before it had a value.
    private struct Abandoned: Error {}

    package func remove(_ key: Key) {
        if let old = self.entries.remove(key) { self.totalCost -= old.cost }
    }

    package func insert(_ value: Value, for key: Key) {
        let cost = self.cost(value)
        guard cost <= self.budget else { return }
        if let old = self.entries.set(Entry(value: value, cost: cost), for: key) { self.totalCost -= old.cost }
        self.totalCost += cost
        while self.totalCost > self.budget || self.entries.count > self.maxEntries, let oldest = self.entries.removeOldest() {
            self.totalCost -= oldest.value.cost
        }
    }
}
