import HummingbirdTesting

@testable import Backdrop

/// Backdrop in front of a stand-in Commons (``StandInCommons``): its settings, the run of a test against both, the place
/// near the Eiffel tower its files are around, and the parse of its answers.
enum CommonsBackdrop {
    static let cell = Geohash("u09tq")!

    static let paris = "lat=48.8584&lon=2.2945"

    static func parse(_ files: [StandInCommons.File]) throws -> [CandidatePhoto] {
        try CommonsSearchResponse.parse(Array(StandInCommons.searchJSON(files, base: "https://upload.wikimedia.org").utf8), near: Self.cell)
    }

    static func settings(_ commons: StandInCommons, _ configure: (inout Settings) -> Void = { _ in }) -> Settings {
        var settings = TestApp.settings(logLevel: .info)
        settings.photos.sources = [.flickr, .commons, .stock]
        settings.commons.endpoint = commons.endpoint
        settings.commons.extraImageHosts = ["localhost"]
        settings.commons.userAgent = "Backdrop-tests/1.0 (ops@example.org)"
        // Patient, as FlickrBackdrop.patient: beside the whole suite a call to the stand-in can wait behind other suites'
        // renders. Tests of timeouts and the deadline set their own.
        settings.commons.connectTimeout = .seconds(5)
        settings.commons.totalTimeout = TestApp.patientDeadline
        settings.photos.requestDeadline = TestApp.patientDeadline
        settings.cluster.lease = TestApp.patientLease
        configure(&settings)
        return settings
    }

    static func withBackdrop(
        _ answers: @escaping @Sendable (StandInCommons) -> [StandInCommons.Answer],
        clock: any WallClock = FixedClock(date: TestApp.epoch),
        configure: @escaping @Sendable (inout Settings) -> Void = { _ in },
        _ body: @Sendable (StandInCommons, any TestClientProtocol, LogRecords) async throws -> Void
    ) async throws {
        try await StandInCommons.run(answers) { commons in
            let records = LogRecords()
            let logger = records.logger
            try await TestApp.run(Self.settings(commons, configure), clock: clock, logger: logger) { client in
                try await body(commons, client, records)
            }
        }
    }
}
