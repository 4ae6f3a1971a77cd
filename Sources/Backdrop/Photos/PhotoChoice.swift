/// Deterministic choice among `count` photos for a place and window, the same in every process and replica.
public enum PhotoChoice {
    /// Consecutive windows of one place always get different photos (when there are two or more), and
    /// places start their sequence at a point derived from a stable hash of their key.
    public static func index(place: Place, window: TimeWindow, count: Int) -> Int {
        precondition(count > 0, "no photos to choose from")
        let offset = self.stableHash(place.key) % UInt64(count)
        let step = UInt64(truncatingIfNeeded: window.index) % UInt64(count)
        return Int((offset + step) % UInt64(count))
    }

    /// FNV-1a, 64-bit: Swift's own `Hasher` is seeded per process, which replicas must not be.
    public static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
