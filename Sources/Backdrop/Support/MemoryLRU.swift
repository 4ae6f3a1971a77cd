/// A byte-bounded least-recently-used cache whose concurrent misses for one key share one computation.
///
/// Waiting is cancellable: a waiter whose task is cancelled (its request's deadline passed) leaves at once. When the
/// caller computing a value is cancelled, the computation is not wasted on the others' errors: one of the waiters takes
/// it over.
public actor MemoryLRU<Key: Hashable & Sendable, Value: Sendable> {
    private struct Entry {
        let value: Value
        let cost: Int
        var lastUse: UInt64
    }

    private let budget: Int
    private let cost: @Sendable (Value) -> Int
    private var entries = [Key: Entry]()
    private var waiting = [Key: [OneShot<Value>]]()
    private var clock: UInt64 = 0
    public private(set) var totalCost = 0

    public init(budget: Int, cost: @escaping @Sendable (Value) -> Int) {
        self.budget = budget
        self.cost = cost
    }

    public var count: Int { self.entries.count }

    /// Callers waiting for a computation of `key` in progress.
    func waiterCount(for key: Key) -> Int { self.waiting[key]?.count ?? 0 }

    public func cached(_ key: Key) -> Value? {
        guard var entry = self.entries[key] else { return nil }
        self.clock += 1
        entry.lastUse = self.clock
        self.entries[key] = entry
        return entry.value
    }

    /// The cached value, or the one `make` produces. While `make` runs for a key, other callers for that key wait
    /// for its result instead of computing it again.
    public func value(for key: Key, make: @Sendable () async throws -> Value) async throws -> Value {
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

    public func remove(_ key: Key) {
        if let old = self.entries.removeValue(forKey: key) { self.totalCost -= old.cost }
    }

    public func insert(_ value: Value, for key: Key) {
        let cost = self.cost(value)
        guard cost <= self.budget else { return }
        if let old = self.entries.removeValue(forKey: key) { self.totalCost -= old.cost }
        self.clock += 1
        self.entries[key] = Entry(value: value, cost: cost, lastUse: self.clock)
        self.totalCost += cost
        while self.totalCost > self.budget, let oldest = self.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            self.entries.removeValue(forKey: oldest.key)
            self.totalCost -= oldest.value.cost
        }
    }
}
