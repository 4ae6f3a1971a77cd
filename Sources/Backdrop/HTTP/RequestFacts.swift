import Synchronization

/// What a request's handler decided (the photo's source, the cell, the image format), recorded once where it is
/// decided and read by the request log, the trace and the metrics through the task-local ``current``: they never read
/// it back from the response's `X-Backdrop-*` headers, which the handler writes from the same values.
final class RequestFacts: Sendable {
    struct Values: Sendable, Equatable {
        /// The photo's source as `X-Backdrop-Source` gives it (`flickr`, `stock`, `commons; stale`).
        var source: String?
        var cell: String?
        /// The image's format; nil for answers that are not images.
        var format: OutputFormat?
    }

    @TaskLocal static var current: RequestFacts?

    private let values = Mutex(Values())

    var recorded: Values { self.values.withLock { $0 } }

    /// Records the photo and the place an answer is about, and its format if it is an image.
    static func record(photo: SourcePhoto, place: Place, format: OutputFormat? = nil) {
        self.current?.values.withLock { values in
            values.source = photo.sourceLabel
            values.cell = place.key
            values.format = format
        }
    }

    /// Runs `body` with the request's facts bound: those of an outer middleware's, or new ones.
    static func recording<T>(_ body: () async throws -> T) async rethrows -> (T, RequestFacts) {
        if let facts = self.current { return (try await body(), facts) }
        let facts = RequestFacts()
        return (try await self.$current.withValue(facts) { try await body() }, facts)
    }
}
