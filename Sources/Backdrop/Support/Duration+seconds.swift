extension Duration {
    /// The duration in seconds, as Foundation's `TimeInterval`, SQL intervals and `Cache-Control` take it.
    var inSeconds: Double {
        Double(self.components.seconds) + Double(self.components.attoseconds) / 1e18
    }

    /// Whole seconds, rounded down, as `Cache-Control`'s `max-age` and `stale-while-revalidate` take them.
    var wholeSeconds: Int { Int(self.components.seconds) }
}
