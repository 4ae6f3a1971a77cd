import Synchronization

extension Mutex {
    /// The value kept for `key`, made by `make` (under the lock) the first time it is asked for: for tables of a few
    /// values that every request would otherwise make again.
    func kept<Key: Hashable & Sendable, Kept: Sendable>(_ key: Key, make: () -> Kept) -> Kept where Value == [Key: Kept] {
        self.withLock { table in
            if let found = table[key] { return found }
            let made = make()
            table[key] = made
            return made
        }
    }
}
