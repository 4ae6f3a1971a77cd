import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import Backdrop

/// The app as the tests start and ask it: ``run(_:clock:logger:metrics:middleware:resolve:lateLooks:live:_:)`` is the one
/// way a test starts it, ``get(_:_:method:)`` the one way it asks; the settings every test starts from (no disk cache,
/// no source beyond loopback, a patient deadline) and the moments the tests are set at.
enum TestApp {
    static let epoch = Date(timeIntervalSince1970: 1_800_000_200)  // 200 s into a 900 s window

    static func settings(logLevel: LogLevelSetting = .warning) -> Settings {
        var settings = Settings()
        settings.photos.stockFolder = Fixtures.stockFolder.path
        settings.server.publicFolder = Fixtures.repositoryRoot.appendingPathComponent("Public").path
        settings.server.logLevel = logLevel
        settings.cache.folder = ""  // tests that want the disk cache give it a folder of their own
        settings.photos.sources = [.flickr, .stock]  // never beyond loopback: Commons only with a stand-in
        // Every test runs at once on two cores: on the release build the slowest request of the suite took 4 s (issue
        // 61), so 3 times that. Tests of the deadline set their own; the others must not meet it by chance.
        settings.photos.requestDeadline = Self.patientDeadline
        settings.cluster.lease = Self.patientLease
        return settings
    }

    /// The deadline (and a lease above it) of tests of what is served, not of when: 3 times the slowest request measured
    /// in the whole suite on two cores (4 s on the release build).
    static let patientDeadline = Duration.seconds(12)

    static let patientLease = Duration.seconds(20)

    /// Starts Backdrop with `settings` (through the router, or on a socket of its own when `live`), runs `test` against
    /// it, and stops it; the arguments between are ``buildApplication(_:clock:logger:metrics:middleware:services:resolve:lateLooks:)``'s.
    @discardableResult
    static func run<Value: Sendable>(
        _ settings: Settings = TestApp.settings(),
        clock: any WallClock = FixedClock(date: epoch),
        logger: Logger? = nil,
        metrics: BackdropMetrics = BackdropMetrics(),
        middleware: [any MiddlewareProtocol<Request, Response, BackdropRequestContext>] = [],
        resolve: @escaping @Sendable (String) async -> [String] = ImageHostPolicy.systemResolve,
        lateLooks: LateLooks = LateLooks(),
        live: Bool = false,
        _ test: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let app = try await buildApplication(
            settings,
            clock: clock,
            logger: logger,
            metrics: metrics,
            middleware: middleware,
            resolve: resolve,
            lateLooks: lateLooks
        )
        return try await app.test(live ? .live : .router, test)
    }

    /// The app on ``settings(logLevel:)`` at `date`, logging to `logger` at `info` when one is given.
    static func withApp(
        at date: Date = epoch,
        logger: Logger? = nil,
        _ test: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        try await Self.run(settings(logLevel: logger == nil ? .warning : .info), clock: FixedClock(date: date), logger: logger, test)
    }

    struct Answer {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let body: [UInt8]
        var json: [String: String] {
            (try? JSONSerialization.jsonObject(with: Data(self.body)) as? [String: String]) ?? [:]
        }
        var photoID: String? { self.headers[BackdropHeaders.photoID] }
    }

    static func get(_ client: some TestClientProtocol, _ uri: String, method: HTTPRequest.Method = .get) async throws -> Answer {
        try await client.execute(uri: uri, method: method) { response in
            Answer(status: response.status, headers: response.headers, body: Array(buffer: response.body))
        }
    }

    /// The centre of Paris, and the moments of the tests of the sky: a January night and noon there.
    static let paris = "lat=48.8566&lon=2.3522"

    static let night = "2027-01-15T23:05:00Z"

    static let noon = "2027-01-15T12:05:00Z"

    static func date(_ text: String) throws -> Date { try #require(ISO8601DateFormatter().date(from: text)) }

    static func withStock(at date: Date, deny: [String] = [], _ test: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        var settings = TestApp.settings()
        settings.photos.deny = deny
        try await Self.run(settings, clock: FixedClock(date: date), test)
    }

    /// `/background.json?query`'s answer and its JSON.
    static func answerAndJSON(_ client: some TestClientProtocol, _ query: String) async throws -> (Answer, [String: Any]) {
        let answer = try await Self.get(client, "/background.json?\(query)")
        return (answer, try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any], "\(query): \(answer.status)"))
    }

    /// `/background.json?query`'s JSON, expected a 200.
    static func json(_ client: some TestClientProtocol, _ query: String) async throws -> [String: Any] {
        let (answer, json) = try await Self.answerAndJSON(client, query)
        #expect(answer.status == .ok, "\(query): \(String(decoding: answer.body, as: UTF8.self))")
        return json
    }
}
