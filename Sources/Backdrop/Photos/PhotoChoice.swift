/// Deterministic choice among a pool of `count` equally good photos for a place and window, the same in every process
/// and replica: windows go through the pool in passes of `count` consecutive windows, each pass showing every photo
/// once in an order shuffled for the place and pass, so no photo repeats before the whole pool has been shown; a pass
/// never starts with the photo that ended the one before, so consecutive windows always differ (with two or more).
enum PhotoChoice {
    package static func index(place: Place, window: TimeWindow, count: Int) -> Int {
        self.index(key: place.key, window: window.index, count: count)
    }

    /// The position in the pool that window number `window` of `key` (a place) shows.
    static func index(key: String, window: Int64, count: Int) -> Int {
        precondition(count > 0, "no photos to choose from")
        guard count > 1 else { return 0 }
        let length = Int64(count)
        let step = Int((window % length + length) % length)
        let pass = (window - Int64(step)) / length
        if count == 2 {
            // Two photos alternate: a pass of two that began with the other would repeat it.
            return (step + Int(StableHash.of(key) % 2)) % 2
        }
        var order = Self.shuffled(count, key: key, pass: pass)
        if order[0] == Self.shuffled(count, key: key, pass: pass - 1)[count - 1] {
            // Swapping the first two leaves the last in place (three or more), so the next pass's rule holds too.
            order.swapAt(0, 1)
        }
        return order[step]
    }

    /// The position in a pool of `count` whose first `favoured` (a best tier, topped up by the rest) show twice as
    /// often as the rest: a pass shows half the rest, each favoured photo, the other half and each favoured photo again,
    /// each part in an order shuffled for the place and pass, so consecutive windows always differ (a pass ends with a
    /// favoured photo and begins with another). Without both kinds, or with two photos, ``index(key:window:count:)``.
    static func index(key: String, window: Int64, count: Int, favoured: Int) -> Int {
        let rest = count - favoured
        guard favoured > 0, rest > 0, count > 2 else { return self.index(key: key, window: window, count: count) }
        let length = Int64(2 * favoured + rest)
        let step = Int((window % length + length) % length)
        let pass = (window - Int64(step)) / length
        let best = Self.shuffled(favoured, key: "\(key)/favoured", pass: pass)
        var again = Self.shuffled(favoured, key: "\(key)/again", pass: pass)
        let others = Self.shuffled(rest, key: "\(key)/rest", pass: pass).map { $0 + favoured }
        let half = (rest + 1) / 2
        // One of the rest alone: the second showing follows the first at once, so it must not begin with the first's last.
        if rest == 1, again[0] == best[favoured - 1] { again.swapAt(0, 1) }
        let order = others[..<half] + best + others[half...] + again
        return order[step]
    }

    /// 0 ..< `count` in the order of a Fisher–Yates shuffle seeded by `key` and `pass` (SplitMix64).
    static func shuffled(_ count: Int, key: String, pass: Int64) -> [Int] {
        var state = StableHash.of("\(key)/pass/\(pass)")
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var order = Array(0..<count)
        for index in stride(from: count - 1, to: 0, by: -1) {
            order.swapAt(index, Int(next() % UInt64(index + 1)))
        }
        return order
    }
}
