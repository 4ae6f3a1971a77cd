import Logging
import Synchronization
import Tracing

/// One request's way down the photo line. A remote photo that cannot be fetched, cannot be decoded, or fails the
/// quality gate is marked unusable and replaced: by its source's next candidate, then, after ``perSource`` photos of one
/// source, by the next source's, and the stock photos end the line. So a request tries at most ``perSource`` photos of
/// each nearby source, then one stock photo; no photo's fault reaches the client. A photo whose pixels show people
/// though it was ranked as free of them is not unusable: its source ranks the cell again knowing it (below the photos
/// of the same sky without people) and the request takes what now comes first, which does not count as a try (each
/// photo is found so at most once a request). A photo whose media host asked to wait (``MediaHostPauses``) is not
/// marked either: its source is passed for the rest of the request, and the photo is tried again after the pause. What
/// was passed over, and why, goes to the request's span (one event a
/// photo) and to one log line.
final class PhotoAttempts: Sendable {
    /// Photos of one source a request tries before it asks the next source.
    static let perSource = 3

    let photos: PhotoLine
    let place: Place
    let window: TimeWindow
    let variant: Int
    let shape: ScreenShape
    /// Who asks: a search the line makes is charged to its share (``ClientShares``).
    let client: RequestClient
    let logger: Logger
    let span: any Span
    private let passed = Mutex<[(id: String, origin: PhotoOrigin, reason: String, counts: Bool)]>([])

    init(photos: PhotoLine, place: Place, window: TimeWindow, variant: Int, shape: ScreenShape, client: RequestClient, logger: Logger, span: any Span)
    {
        self.photos = photos
        self.place = place
        self.window = window
        self.variant = variant
        self.shape = shape
        self.client = client
        self.logger = logger
        self.span = span
    }

    /// `make` applied to `photo`, or to what replaces it: with `replacing`, the line's next photo; without (the
    /// deadline's fallback, which must not wait on a source again), a stock photo at once.
    func make<Made: Sendable>(from photo: SourcePhoto, _ make: (SourcePhoto) async throws -> Made, replacing: Bool = true) async throws -> Made {
        var photo = photo
        while true {
            do {
                let made = try await make(photo)
                self.report(served: photo)
                return made
            } catch  where photo.origin != .stock && !(error is any NoFaultOfThePhoto) && !(error is CancellationError) && !Task.isCancelled {
                let ranksAgain = (error as? PhotoRejected)?.verdict == .people && !self.wasPassed(photo)
                // A media host that asked to wait: the photo is not at fault, and the host will not answer for this
                // source's other photos either; the request goes on to the next source.
                let throttled = (error as? DownloadError)?.kind == .throttled
                let tried = self.pass(photo, error, counts: !ranksAgain)
                if throttled {
                    // Not marked: the photo is tried again once the pause ends.
                } else if ranksAgain {
                    await self.photos.markPeople(photo, place: self.place, window: self.window)
                } else {
                    await self.photos.markUnusable(photo, place: self.place, window: self.window)
                }
                var spent = Set(PhotoOrigin.allCases.filter { origin in tried.filter { $0 == origin }.count >= Self.perSource })
                if throttled { spent.insert(photo.origin) }
                photo =
                    replacing
                    ? try await self.photos.photo(
                        for: self.place,
                        in: self.window,
                        variant: self.variant,
                        shape: self.shape,
                        passing: spent,
                        client: self.client
                    )
                    : try await self.photos.stockPhoto(for: self.place, in: self.window, variant: self.variant, shape: self.shape)
            }
        }
    }

    /// Whether `photo` was passed over already in this request.
    private func wasPassed(_ photo: SourcePhoto) -> Bool {
        self.passed.withLock { $0.contains { $0.id == photo.id } }
    }

    /// Records `photo` as passed over for `error`; returns the origins of every photo passed over so far that counts
    /// as a try.
    private func pass(_ photo: SourcePhoto, _ error: any Error, counts: Bool) -> [PhotoOrigin] {
        let reason = Self.reason(error)
        self.span.addEvent(
            SpanEvent(
                name: "photo unusable",
                attributes: ["backdrop.photo.id": "\(photo.id)", "backdrop.photo.problem": "\(reason.label)"]
            )
        )
        return self.passed.withLock {
            $0.append((photo.id, photo.origin, reason.text, counts))
            return $0.filter(\.counts).map(\.origin)
        }
    }

    /// One log line for a request that passed photos over: which, why, and what it served instead.
    private func report(served photo: SourcePhoto) {
        let passed = self.passed.withLock { $0 }
        guard !passed.isEmpty else { return }
        self.logger.warning(
            "photos passed over",
            metadata: [
                "cell": "\(self.place)",
                "passed": "\(passed.map { "\($0.id): \($0.reason)" }.joined(separator: "; "))",
                "served": "\(photo.id)",
            ]
        )
    }

    /// A short label for the trace (download, decode, quality:VERDICT, other) and a bounded description for the log.
    static func reason(_ error: any Error) -> (label: String, text: String) {
        let text = String(String(describing: error).prefix(160))
        switch error {
        case let rejected as PhotoRejected: return ("quality:\(rejected.verdict.rawValue)", text)
        case is DownloadError: return ("download", text)
        case is ImagingError: return ("decode", text)
        default: return ("other", text)
        }
    }
}
