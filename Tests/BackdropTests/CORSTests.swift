import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import Backdrop

/// CORS on every route, method and status the router answers, preflights, and the origin list.
@Suite("CORS")
struct CORSTests {
    static func withApp(
        _ origins: CORSOrigins = .any,
        configure: (inout Settings) -> Void = { _ in },
        _ test: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        var settings = TestApp.settings()
        settings.server.corsOrigins = origins
        configure(&settings)
        try await TestApp.run(settings, test)
    }

    static func get(
        _ client: some TestClientProtocol,
        _ uri: String,
        method: HTTPRequest.Method = .get,
        _ headers: HTTPFields = [:]
    ) async throws -> TestApp.Answer {
        try await client.execute(uri: uri, method: method, headers: headers) { response in
            TestApp.Answer(status: response.status, headers: response.headers, body: Array(buffer: response.body))
        }
    }

    static let origin: HTTPFields = [.origin: "https://example.com"]

    @Test func everyRouteAndStatusCarriesTheHeadersAScriptNeeds() async throws {
        try await Self.withApp { client in
            let cases: [(String, HTTPRequest.Method, HTTPFields, Int)] = [
                ("/background?lat=1&lon=2&width=20&height=20", .get, Self.origin, 200),
                ("/background?lat=1&lon=2&width=20&height=20", .head, Self.origin, 200),
                ("/background.json?lat=1&lon=2", .get, Self.origin, 200),
                ("/health", .get, Self.origin, 200), ("/openapi.yaml", .get, Self.origin, 200), ("/", .get, Self.origin, 200),
                ("/backdrop.js", .get, Self.origin, 200),
                ("/background?lat=91&lon=0", .get, Self.origin, 400), ("/nothing-here", .get, Self.origin, 404),
                ("/background?lat=1&lon=2", .get, Self.origin.merging([.accept: "text/html"]), 406),
                ("/background", .post, Self.origin, 405),
                ("/health", .get, [:], 200),  // no Origin: the same, so that a shared cache can keep one answer
            ]
            for (uri, method, headers, status) in cases {
                let answer = try await Self.get(client, uri, method: method, headers)
                #expect(Int(answer.status.code) == status, "\(method) \(uri)")
                #expect(answer.headers[.accessControlAllowOrigin] == "*", "\(method) \(uri)")
                let exposed = Set(
                    (answer.headers[.accessControlExposeHeaders] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                )
                for name in [
                    "X-Backdrop-Source", "X-Backdrop-Photo-Id", "X-Backdrop-Cell", "X-Backdrop-Credit", "X-Backdrop-Title", "X-Backdrop-Author",
                    "X-Backdrop-License", "X-Backdrop-License-Url", "X-Backdrop-Photo-Url", "Link", "ETag", "Last-Modified", "Retry-After", "Vary",
                ] {
                    #expect(exposed.contains(name), "\(method) \(uri): \(name)")
                }
                #expect(answer.headers[.accessControlAllowCredentials] == nil, "never credentials")
            }
            // A module script from another origin runs only if it is JavaScript and CORS allows it.
            let module = try await Self.get(client, "/backdrop.js", method: .get, Self.origin)
            #expect(module.headers[.contentType]?.contains("javascript") == true)
            #expect(String(decoding: module.body, as: UTF8.self).contains("customElements.define(\"backdrop-background\""))
        }
    }

    @Test func aRefusedRenderCarriesThemToo() async throws {
        // One render at a time, and the render thread held by the test: the first render is in the queue (running) when
        // the second asks, so the second is refused, whatever the machine's speed.
        try await withRenderThreadHeld { release in
            try await Self.withApp(configure: {
                $0.render.workers = 1
                $0.render.maxPending = 1
            }) { client in
                try await withThrowingTaskGroup(of: TestApp.Answer.self) { group in
                    group.addTask { try await Self.get(client, "/background?lat=1&lon=2&width=300", Self.origin) }
                    try await waitUntil("the first render to be in the queue", limit: .seconds(20)) {
                        let metrics = (try? await Self.get(client, "/metrics")).map { String(decoding: $0.body, as: UTF8.self) } ?? ""
                        return renderJobs("running", in: metrics) == 1
                    }
                    let refused = try await Self.get(client, "/background?lat=1&lon=2&width=301", Self.origin)
                    release()
                    let first = try await group.reduce(into: [TestApp.Answer]()) { $0.append($1) }
                    #expect(first.map(\.status) == [.ok])
                    #expect(refused.status == .serviceUnavailable)
                    #expect(refused.headers[.accessControlAllowOrigin] == "*")
                    #expect((refused.headers[.accessControlExposeHeaders] ?? "").contains("Retry-After") && refused.headers[.retryAfter] != nil)
                }
            }
        }
    }

    @Test func aPreflightIsAnswered() async throws {
        try await Self.withApp { client in
            for uri in ["/background.json?lat=1&lon=2", "/background?cell=u09tv", "/health", "/"] {
                let answer = try await Self.get(
                    client,
                    uri,
                    method: .options,
                    Self.origin.merging([.accessControlRequestMethod: "GET", .accessControlRequestHeaders: "if-none-match"])
                )
                #expect(answer.status == .noContent, "\(uri)")
                #expect(answer.headers[.accessControlAllowOrigin] == "*")
                #expect(answer.headers[.accessControlAllowMethods] == "GET, HEAD")
                #expect(answer.headers[.accessControlAllowHeaders] == "Accept, If-None-Match, If-Modified-Since")
                #expect(answer.headers[.accessControlMaxAge] == "86400")
                #expect(answer.headers[.xContentTypeOptions] == "nosniff", "like every other answer")
                #expect(answer.body.isEmpty)
            }
        }
    }

    @Test func metricsAreNotForOtherSites() async throws {
        try await Self.withApp { client in
            let metrics = try await Self.get(client, "/metrics", Self.origin)
            #expect(metrics.status == .ok && metrics.headers[.accessControlAllowOrigin] == nil && metrics.headers[.accessControlExposeHeaders] == nil)
            let preflight = try await Self.get(client, "/metrics", method: .options, Self.origin.merging([.accessControlRequestMethod: "GET"]))
            #expect(preflight.headers[.accessControlAllowOrigin] == nil)
            let health = try await Self.get(client, "/health", Self.origin)
            #expect(health.headers[.accessControlAllowOrigin] == "*", "every other route keeps CORS")
        }
    }

    @Test func aListOfOriginsAnswersTheListedOneAndVariesByOrigin() async throws {
        let origins = try #require(CORSOrigins(["https://example.com", "http://localhost:3000"]))
        try await Self.withApp(origins) { client in
            let listed = try await Self.get(client, "/background?lat=1&lon=2&width=20&height=20", Self.origin)
            #expect(listed.headers[.accessControlAllowOrigin] == "https://example.com")
            #expect(Set((listed.headers[.vary] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) == ["Accept", "Origin"])
            let other = try await Self.get(client, "/health", [.origin: "https://evil.example"])
            #expect(other.status == .ok && other.headers[.accessControlAllowOrigin] == nil)
            #expect(other.headers[.vary] == "Origin", "a cache must not hand one origin's answer to another")
            let preflight = try await Self.get(
                client,
                "/health",
                method: .options,
                [.origin: "https://evil.example", .accessControlRequestMethod: "GET"]
            )
            #expect(preflight.headers[.accessControlAllowOrigin] == nil && preflight.headers[.accessControlAllowMethods] == nil)
            let local = try await Self.get(client, "/health", [.origin: "http://localhost:3000"])
            #expect(local.headers[.accessControlAllowOrigin] == "http://localhost:3000")
        }
    }

    /// A 304 is an answer a script reads too (its ETag, its credit): the same CORS headers as the 200, for `*` and for a
    /// listed origin, with `Vary: Origin` in the second case.
    @Test func notModifiedAnswersCarryCORS() async throws {
        let uri = "/background?lat=1&lon=2&width=20&height=20"
        let listed = try #require(CORSOrigins(["https://example.com"]))
        for (origins, allowed) in [(CORSOrigins.any, "*"), (listed, "https://example.com")] {
            try await Self.withApp(origins) { client in
                let first = try await Self.get(client, uri, Self.origin)
                let etag = try #require(first.headers[.eTag])
                let again = try await Self.get(client, uri, Self.origin.merging([.ifNoneMatch: etag]))
                #expect(again.status == .notModified)
                #expect(again.headers[.accessControlAllowOrigin] == allowed)
                #expect((again.headers[.accessControlExposeHeaders] ?? "").contains("ETag"))
                if origins != .any { #expect((again.headers[.vary] ?? "").contains("Origin")) }
            }
        }
    }

    /// With a list, a listed origin gets itself back on errors and preflights as on successes, every one varying by
    /// `Origin`.
    @Test func aListedOriginIsAnsweredOnErrorsAndPreflights() async throws {
        let origins = try #require(CORSOrigins(["https://example.com", "http://localhost:3000"]))
        try await Self.withApp(origins) { client in
            let cases: [(String, HTTPRequest.Method, HTTPFields, Int)] = [
                ("/background?lat=91&lon=0", .get, Self.origin, 400), ("/nothing-here", .get, Self.origin, 404),
                ("/background", .post, Self.origin, 405),
                ("/background?lat=1&lon=2", .get, Self.origin.merging([.accept: "text/html"]), 406),
                ("/background.json?lat=1&lon=2", .options, Self.origin.merging([.accessControlRequestMethod: "GET"]), 204),
            ]
            for (uri, method, headers, status) in cases {
                let answer = try await Self.get(client, uri, method: method, headers)
                #expect(Int(answer.status.code) == status, "\(method) \(uri)")
                #expect(answer.headers[.accessControlAllowOrigin] == "https://example.com", "\(method) \(uri)")
                #expect((answer.headers[.vary] ?? "").contains("Origin"), "\(method) \(uri)")
            }
        }
    }

    @Test func anEmptyListTurnsCORSOff() async throws {
        try await Self.withApp(try #require(CORSOrigins([]))) { client in
            let answer = try await Self.get(client, "/health", Self.origin)
            #expect(answer.headers[.accessControlAllowOrigin] == nil && answer.headers[.accessControlExposeHeaders] == nil)
            let preflight = try await Self.get(client, "/health", method: .options, Self.origin.merging([.accessControlRequestMethod: "GET"]))
            #expect(preflight.status == .methodNotAllowed)
        }
    }

    @Test(
        "server.corsOrigins",
        arguments: [
            (#"["*"]"#, true), (#"[]"#, true), (#"["https://example.com"]"#, true), (#"["http://localhost:3000", "https://a.example"]"#, true),
            (#"["example.com"]"#, false), (#"["https://example.com/path"]"#, false), (#"["*", "https://a.example"]"#, false),
            (#"["ftp://example.com"]"#, false), (#"["https://example.com:99999"]"#, false),
        ]
    )
    func corsOriginsSetting(_ list: String, valid: Bool) throws {
        let json = #"{"server": {"corsOrigins": \#(list)}}"#
        if valid {
            _ = try Settings.parse(Data(json.utf8))
        } else {
            #expect { try Settings.parse(Data(json.utf8)) } throws: { "\($0)".contains("server.corsOrigins") }
        }
    }
}

extension HTTPFields {
    fileprivate func merging(_ other: HTTPFields) -> HTTPFields {
        var merged = self
        for field in other { merged.append(field) }
        return merged
    }
}
