import HummingbirdTesting
import Testing

@testable import Backdrop

/// Backdrop in front of a stand-in Flickr (``StandInFlickr``): its settings, patient or quick, and the run of a test
/// against both.
enum FlickrBackdrop {
    typealias Answer = StandInFlickr.SearchAnswer

    static let key = "SECRET-KEY-1234abcd"

    static func settings(_ flickr: StandInFlickr, _ configure: (inout Settings) -> Void = { _ in }) -> Settings {
        var settings = TestApp.settings(logLevel: .info)
        settings.flickr.apiKey = Self.key
        settings.flickr.endpoint = flickr.endpoint
        settings.flickr.extraImageHosts = ["localhost"]
        settings.flickr.connectTimeout = .seconds(1)
        settings.flickr.totalTimeout = .seconds(3)
        settings.flickr.maxDownloadMB = 1
        configure(&settings)
        return settings
    }

    /// For tests of what is chosen, not of when: they run beside the whole suite, where a 3-s download can take longer,
    /// so per-call timeouts and the deadline are far beyond anything a healthy stand-in needs.
    static let patient: @Sendable (inout Settings) -> Void = { settings in
        settings.flickr.connectTimeout = .seconds(5)
        settings.flickr.totalTimeout = TestApp.patientDeadline
        settings.photos.requestDeadline = TestApp.patientDeadline
        settings.cluster.lease = TestApp.patientLease
    }

    /// For tests of a call that never ends: the quick per-call timeouts of ``settings(_:_:)`` (1 s to connect, 3 s in
    /// all), which end it well within those tests' bounds.
    static let quick: @Sendable (inout Settings) -> Void = { _ in }

    /// Runs Backdrop against a stand-in answering `answers`, patient (``patient``) unless `configure` says otherwise;
    /// the body gets the stand-in, a client and the log.
    static func withBackdrop(
        _ answers: @escaping @Sendable (StandInFlickr) -> [Answer],
        clock: any WallClock = FixedClock(date: TestApp.epoch),
        configure: @escaping @Sendable (inout Settings) -> Void = Self.patient,
        live: Bool = false,
        metrics: BackdropMetrics = BackdropMetrics(),
        lateLooks: LateLooks = LateLooks(),
        _ body: @Sendable (StandInFlickr, any TestClientProtocol, LogRecords) async throws -> Void
    ) async throws {
        try await StandInFlickr.run(answers) { flickr in
            let records = LogRecords()
            let logger = records.logger
            try await TestApp.run(Self.settings(flickr, configure), clock: clock, logger: logger, metrics: metrics, lateLooks: lateLooks, live: live)
            {
                client in try await body(flickr, client, records)
            }
        }
    }

    static func results(_ flickr: StandInFlickr, _ images: String...) -> [Answer] {
        [.json(StandInFlickr.searchJSON(images.enumerated().map { flickr.result(id: "5301111111\($0.offset)", image: $0.element) }))]
    }

    /// Expects a 200 PNG of the asked size from `source`, and returns the answer.
    @discardableResult
    static func expectBackground(
        _ client: some TestClientProtocol,
        _ query: String,
        source: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> TestApp.Answer {
        let answer = try await TestApp.get(client, "/background?\(query)")
        #expect(answer.status == .ok, sourceLocation: sourceLocation)
        #expect(answer.headers[BackdropHeaders.source] == source, sourceLocation: sourceLocation)
        if answer.status == .ok {
            let image = try PNGDecoder.decode(answer.body)
            let asked = query.split(separator: "&").first { $0.hasPrefix("width=") }.flatMap { Int($0.dropFirst(6)) } ?? 640
            #expect(image.width == asked, sourceLocation: sourceLocation)
        }
        return answer
    }
}
