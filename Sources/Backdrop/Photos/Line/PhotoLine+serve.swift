import Logging
import Tracing

extension PhotoLine {
    /// What one request makes (`make`: a render, a preview) of the place's photo: within the line's deadline, from the
    /// line's photo, an unusable one replaced by the next (``PhotoAttempts``: its source's next candidates, then the
    /// next source's, then stock); past the deadline, from the ``fallback(for:in:variant:shape:)`` photo (stale or
    /// stock, which needs no upstream call), replaced by stock alone. The request's trace goes to `span`, its one line of
    /// what was passed over to `logger`.
    func serve<Made: Sendable>(
        place: Place,
        window: TimeWindow,
        variant: Int,
        shape: ScreenShape,
        client: RequestClient,
        logger: Logger,
        span: any Span,
        make: @escaping @Sendable (SourcePhoto) async throws -> Made
    ) async throws -> Made {
        let attempts = PhotoAttempts(
            photos: self,
            place: place,
            window: window,
            variant: variant,
            shape: shape,
            client: client,
            logger: logger,
            span: span
        )
        do {
            return try await withDeadline(self.deadline) {
                try await attempts.make(
                    from: try await self.choose(place: place, window: window, variant: variant, shape: shape, client: client),
                    make
                )
            }
        } catch is DeadlinePassed {
            span.addEvent("upstream deadline passed")
            RequestTrace.note("backdrop.fallback", "deadline")
            self.metrics.deadlinePassed()
            logger.warning("upstream deadline passed: serving a fallback photo", metadata: ["cell": "\(place)"])
            let photo = try await self.fallback(for: place, in: window, variant: variant, shape: shape)
            span.addEvent(SpanEvent(name: "fallback photo", attributes: ["backdrop.photo.source": "\(photo.sourceLabel)"]))
            return try await attempts.make(from: photo, make, replacing: false)
        }
    }

    /// The line's photo for the place, window and class of screen, in a span saying where it came from.
    private func choose(place: Place, window: TimeWindow, variant: Int, shape: ScreenShape, client: RequestClient) async throws -> SourcePhoto {
        try await withRequestSpan("photo.choose") { span in
            span.attributes["backdrop.photo.variant"] = variant
            span.attributes["backdrop.screen.shape"] = shape.rawValue
            let photo = try await self.photo(for: place, in: window, variant: variant, shape: shape, client: client)
            span.attributes["backdrop.photo.source"] = photo.origin.rawValue
            span.attributes["backdrop.photo.stale"] = photo.stale
            return photo
        }
    }
}
