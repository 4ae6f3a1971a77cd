/// Deterministic choice among `count` photos for a place and window, the same in every process and replica.
enum PhotoChoice {
    /// Consecutive windows of one place always get different photos (when there are two or more), and
    /// places start their sequence at a point derived from a stable hash of their key.
    package static func index(place: Place, window: TimeWindow, count: Int) -> Int {
        precondition(count > 0, "no photos to choose from")
        let offset = StableHash.of(place.key) % UInt64(count)
        let step = UInt64(truncatingIfNeeded: window.index) % UInt64(count)
        return Int((offset + step) % UInt64(count))
    }
}
