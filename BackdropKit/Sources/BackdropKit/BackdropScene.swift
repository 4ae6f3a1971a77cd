import Foundation

/// What a background view shows, as CoreBackground showed it: the sharp photo, the blurred layer over it fading in as
/// the content above scrolls, and a plain colour when there is nothing current to show. A value: the UI binds its
/// layers' opacity to ``blurredOpacity(scrollOffset:)`` and sleeps until ``nextFetch(after:)``.
public struct BackdropScene: Sendable, Hashable {
    /// The scroll distance over which the blurred layer fades in: CoreBackground's 80 points.
    public static let defaultFadeDistance: Double = 80
    /// The first retry after a failed fetch; each further failure doubles it, up to ``maxRetryDelay``.
    public static let firstRetryDelay: TimeInterval = 5
    public static let maxRetryDelay: TimeInterval = 300

    public var fadeDistance: Double
    /// Shown once the last background's window has ended and no new one came.
    public var fallbackColor: BackdropColor
    /// The last background fetched, current or not.
    public private(set) var background: Background?
    /// Failed fetches since the last one that succeeded.
    public private(set) var failures = 0
    /// When to try again after a failure; nil when the last fetch succeeded.
    public private(set) var retryAt: Date?

    /// What to show.
    public enum Content: Sendable, Hashable {
        /// The background, its window not yet ended.
        case background(Background)
        /// A plain colour: no background yet, or the last one's window has ended.
        case color(BackdropColor)
    }

    public init(background: Background? = nil, fadeDistance: Double = BackdropScene.defaultFadeDistance, fallbackColor: BackdropColor = .stock) {
        self.background = background
        self.fadeDistance = fadeDistance
        self.fallbackColor = fallbackColor
    }

    /// The blurred layer's opacity when the content above has scrolled `scrollOffset` points: 0 at rest (and when
    /// pulled down past the top), rising evenly to 1 at ``fadeDistance``, 1 beyond.
    public func blurredOpacity(scrollOffset: Double) -> Double {
        guard self.fadeDistance > 0 else { return scrollOffset > 0 ? 1 : 0 }
        let fraction = scrollOffset / self.fadeDistance
        return fraction.isNaN ? 0 : min(1, max(0, fraction))
    }

    /// The text colour and scrim for text over `region` when the content has scrolled `scrollOffset` points: the
    /// advice of the layer that shows more, its scrim following the blurred layer's opacity. Nil before the first
    /// background (or from a service that does not say): use white text over ``fallbackColor``.
    public func text(over region: Legibility.Region = .whole, scrollOffset: Double) -> Legibility.Advice? {
        self.background?.legibility?.advice(for: region, blur: self.blurredOpacity(scrollOffset: scrollOffset))
    }

    /// What to show at `now`: the last background until its window ends (by this device's clock, so offline too),
    /// then ``fallbackColor``.
    public func content(at now: Date) -> Content {
        if let background = self.background, now < background.expiry { return .background(background) }
        return .color(self.fallbackColor)
    }

    /// When to fetch next: when the current window ends (the next window's photo), sooner after a failure (at
    /// ``retryAt``), or `now` when there is nothing yet.
    public func nextFetch(after now: Date) -> Date {
        if let retryAt = self.retryAt { return max(now, retryAt) }
        guard let background = self.background else { return now }
        return max(now, background.expiry)
    }

    /// Takes a fetch's outcome at `now`: a background replaces the last one; a failure keeps it (and so keeps showing
    /// it until its window ends) and sets ``retryAt``: the service's `Retry-After` when it was busy, else a back-off
    /// from ``firstRetryDelay`` doubling to ``maxRetryDelay``.
    public mutating func update(_ result: Result<Background, BackdropError>, at now: Date = Date()) {
        switch result {
        case .success(let background):
            self.background = background
            self.failures = 0
            self.retryAt = nil
        case .failure(let error):
            self.failures += 1
            let backoff = min(Self.maxRetryDelay, Self.firstRetryDelay * pow(2, Double(min(self.failures - 1, 16))))
            if case .busy(let retryAfter, _) = error {
                self.retryAt = now.addingTimeInterval(TimeInterval(max(1, retryAfter)))
            } else {
                self.retryAt = now.addingTimeInterval(backoff)
            }
        }
    }
}

extension Result where Failure == BackdropError {
    /// The outcome of a client call, for ``BackdropScene/update(_:at:)``:
    /// `scene.update(await Result { try await client.background(at: place, size: size) })`. The client's calls throw
    /// only ``BackdropError``; anything else (a closure's own errors) is reported as the client reports it.
    public init(_ call: () async throws -> Success) async {
        do {
            self = .success(try await call())
        } catch {
            self = .failure(BackdropError(error, timeout: 0))
        }
    }
}
