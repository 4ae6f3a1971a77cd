import Foundation
import Hummingbird
import Synchronization
import Testing

@testable import Backdrop

/// A server on a socket of its own, asked in raw HTTP: what a router middleware saw, an answer, a metric.
enum LiveServer {
    /// Every response a router middleware saw: method, path and status.
    final class Seen: Sendable {
        fileprivate let responses = Mutex<[(method: String, path: String, status: Int, target: String)]>([])
        var all: [(method: String, path: String, status: Int, target: String)] { self.responses.withLock { $0 } }
        /// The targets (path and query) of the backgrounds answered 200, in the order they were answered.
        var served: [String] { self.all.filter { $0.path == "/background" && $0.status == 200 }.map(\.target) }
        var witness: Witness { Witness(seen: self) }
    }

    /// A middleware added to the router, as CORS or tracing would be, that records what it sees.
    struct Witness: RouterMiddleware {
        typealias Context = BackdropRequestContext
        let seen: Seen

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            let response = try await next(request, context)
            self.seen.responses.withLock {
                $0.append((request.method.rawValue, request.uri.path, Int(response.status.code), request.uri.description))
            }
            return response
        }
    }

    /// The app on `settings` (the tests' own, with a disk cache in a new folder, then `configure`) on a socket of its
    /// own, with `middleware` (none: hits are replayed beneath the router), for `test`.
    static func run(
        clock: any WallClock = FixedClock(date: TestApp.epoch),
        middleware: [any MiddlewareProtocol<Request, Response, BackdropRequestContext>],
        configure: (inout Settings) -> Void = { _ in },
        _ test: @Sendable (_ port: Int, _ folder: URL) async throws -> Void
    ) async throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var settings = TestApp.settings()
        settings.cache.folder = folder.path
        configure(&settings)
        try await TestApp.run(settings, clock: clock, middleware: middleware, live: true) { client in
            try await test(try #require(client.port), folder)
        }
    }

    /// One exchange on a thread of its own (``RawHTTP/onItsOwnThread(_:)``): a blocking read on the concurrency pool
    /// would take a thread the server under test needs.
    static func get(_ port: Int, _ target: String, method: String = "GET", _ headers: String...) async throws -> RawHTTP.Response {
        let responses = try await RawHTTP.onItsOwnThread { try RawHTTP.exchange(port: port, [(method, target, headers)]) }
        return try #require(responses.first)
    }

    /// A counter's value from `/metrics`.
    static func counter(_ port: Int, _ name: String) async throws -> Int {
        let text = String(decoding: try await self.get(port, "/metrics").body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix("\(name) ") }
        return line.flatMap { Int(Double($0.split(separator: " ")[1]) ?? -1) } ?? 0
    }
}
