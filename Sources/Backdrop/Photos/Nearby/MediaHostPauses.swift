import Foundation

/// The image hosts that asked a source to wait (a `429` or `503` from a media host, `Retry-After` honoured, a minute
/// when it says nothing, an hour at most), shared by the source's photo downloads and its thumbnails for looks. While a
/// host is paused nothing is asked of it: a download fails at once as ``DownloadError/Kind/throttled``, which marks no
/// photo unusable (the request goes on to the next source or stock, and the photo is tried again after the pause).
actor MediaHostPauses {
    private let clock: any WallClock
    private var until = [String: Date]()

    /// A pause when the host gave no `Retry-After`.
    static let defaultPause = 60.0

    init(clock: any WallClock = SystemClock()) {
        self.clock = clock
    }

    /// The seconds left of `host`'s pause, nil when it is not paused.
    func remaining(_ host: String) -> Double? {
        guard let end = self.until[host] else { return nil }
        let left = end.timeIntervalSince(self.clock.now())
        if left <= 0 { self.until[host] = nil }
        return left > 0 ? left : nil
    }

    /// `host` asked to wait `seconds` (nil: it did not say); a shorter pause never shortens one running.
    func pause(_ host: String, seconds: Double?) {
        let end = self.clock.now().addingTimeInterval(min(max(seconds ?? Self.defaultPause, 1), CommonsClient.longestRetry))
        if self.until.count > 1024 { self.until = self.until.filter { $0.value > self.clock.now() } }
        self.until[host] = max(self.until[host] ?? end, end)
    }
}
