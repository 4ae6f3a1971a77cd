/// Values by key in least-recently-used order, every operation in constant time: a dictionary from key to a slot in an
/// array of nodes linked both ways (most recent at the head), with freed slots reused. The one ordering behind every
/// cache (``MemoryLRU`` for memory, ``DiskCache`` for the disk index): looking up, touching, inserting, removing and
/// finding the oldest never scan the entries.
struct LRUIndex<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value
        var newer: Int
        var older: Int
    }

    private static var none: Int { -1 }

    private var slots = [Int]()  // freed node slots, reused before the array grows
    private var nodes = [Node?]()
    private var positions = [Key: Int]()
    private var newest = Self.none
    private var oldestSlot = Self.none

    var count: Int { self.positions.count }
    var isEmpty: Bool { self.positions.isEmpty }

    /// The value for `key`, leaving the order as it is.
    subscript(key: Key) -> Value? {
        self.positions[key].flatMap { self.nodes[$0]?.value }
    }

    /// The value for `key`, which becomes the most recently used.
    mutating func touch(_ key: Key) -> Value? {
        guard let slot = self.positions[key] else { return nil }
        self.unlink(slot)
        self.linkAsNewest(slot)
        return self.nodes[slot]?.value
    }

    /// Sets `value` for `key` as the most recently used (or, `asOldest`, the least: for entries found on disk at start,
    /// older than any used since); returns the value it replaced.
    @discardableResult
    mutating func set(_ value: Value, for key: Key, asOldest: Bool = false) -> Value? {
        let old = self.remove(key)
        let node = Node(key: key, value: value, newer: Self.none, older: Self.none)
        let slot: Int
        if let free = self.slots.popLast() {
            slot = free
            self.nodes[slot] = node
        } else {
            slot = self.nodes.count
            self.nodes.append(node)
        }
        self.positions[key] = slot
        if asOldest { self.linkAsOldest(slot) } else { self.linkAsNewest(slot) }
        return old
    }

    /// Updates the value for `key` in place, leaving the order as it is; false when the key is absent.
    @discardableResult
    mutating func update(_ key: Key, _ change: (inout Value) -> Void) -> Bool {
        guard let slot = self.positions[key], var node = self.nodes[slot] else { return false }
        change(&node.value)
        self.nodes[slot] = node
        return true
    }

    @discardableResult
    mutating func remove(_ key: Key) -> Value? {
        guard let slot = self.positions.removeValue(forKey: key) else { return nil }
        self.unlink(slot)
        let value = self.nodes[slot]?.value
        self.nodes[slot] = nil
        self.slots.append(slot)
        return value
    }

    /// The least recently used entry.
    var oldest: (key: Key, value: Value)? {
        guard self.oldestSlot != Self.none, let node = self.nodes[self.oldestSlot] else { return nil }
        return (node.key, node.value)
    }

    /// Removes and returns the least recently used entry.
    mutating func removeOldest() -> (key: Key, value: Value)? {
        guard let oldest = self.oldest else { return nil }
        self.remove(oldest.key)
        return oldest
    }

    /// Every entry, in no particular order (for sweeps and reports, which look at all of them anyway).
    var entries: [(key: Key, value: Value)] {
        self.nodes.compactMap { $0.map { ($0.key, $0.value) } }
    }

    private mutating func unlink(_ slot: Int) {
        guard let node = self.nodes[slot] else { return }
        if node.newer != Self.none { self.nodes[node.newer]?.older = node.older } else { self.newest = node.older }
        if node.older != Self.none { self.nodes[node.older]?.newer = node.newer } else { self.oldestSlot = node.newer }
        self.nodes[slot]?.newer = Self.none
        self.nodes[slot]?.older = Self.none
    }

    private mutating func linkAsOldest(_ slot: Int) {
        self.nodes[slot]?.newer = self.oldestSlot
        self.nodes[slot]?.older = Self.none
        if self.oldestSlot != Self.none { self.nodes[self.oldestSlot]?.older = slot }
        self.oldestSlot = slot
        if self.newest == Self.none { self.newest = slot }
    }

    private mutating func linkAsNewest(_ slot: Int) {
        self.nodes[slot]?.older = self.newest
        self.nodes[slot]?.newer = Self.none
        if self.newest != Self.none { self.nodes[self.newest]?.newer = slot }
        self.newest = slot
        if self.oldestSlot == Self.none { self.oldestSlot = slot }
    }
}
