import Foundation
import Testing

@testable import Backdrop

/// Two clients are two over real HTTP: told apart by their peer addresses, or by the address a trusted proxy names, the
/// render queue serves them in turn and refuses only the one that floods.
@Suite("Two clients over HTTP", .serialized)
struct TwoClientsTests {
    enum Naming: String, CaseIterable, CustomTestStringConvertible {
        case peers, forwardedFor
        var testDescription: String { self.rawValue }
    }

    struct Client {
        let source: String
        let headers: [String]
    }

    static let flood = 20

    /// A cold render of its own: a cell and a size no other request of the test asks for.
    static func target(_ index: Int) -> String { "/background?lat=\(index - 40).5&lon=20.5&blur=0.5&width=\(600 + index)&height=1136" }

    @Test(arguments: Naming.allCases)
    func theSecondClientIsServedBeforeTheFirstsQueueAndOnlyTheFirstIsRefused(_ naming: Naming) async throws {
        let (first, second) =
            switch naming {
            case .peers: (Client(source: "127.0.0.2", headers: []), Client(source: "127.0.0.3", headers: []))
            case .forwardedFor:
                (
                    Client(source: "127.0.0.4", headers: ["X-Forwarded-For: 198.51.100.7"]),
                    Client(source: "127.0.0.4", headers: ["X-Forwarded-For: 203.0.113.9, 198.51.100.8"])
                )
            }
        var settings = TestApp.settings()
        // One render thread and a 100-ms wait budget: nine 640x1136 prepares (12 ms each, as first estimated) fit.
        settings.render.workers = 1
        settings.render.maxQueueWait = .milliseconds(100)
        if naming == .forwardedFor { settings.server.trustedProxies = [try #require(IPRange("127.0.0.4"))] }
        let seen = LiveServer.Seen()
        let target = Self.target
        let secondTarget = target(60)
        // The test holds the render pool's one thread: the first render is admitted and counted as running, and the
        // others wait in the gate's order until the test lets go.
        try await withRenderThreadHeld { release in
            try await TestApp.run(settings, middleware: [seen.witness], live: true) { client in
                let port = try #require(client.port)
                func fetch(_ client: Client, _ target: String) async throws -> RawHTTP.Response {
                    try await RawHTTP.exchangeOnItsOwnThread(port: port, from: client.source, target, client.headers)
                }
                func jobs(_ state: String) async throws -> Int {
                    let metrics = try await fetch(Client(source: "127.0.0.1", headers: []), "/metrics")
                    return renderJobs(state, in: String(decoding: metrics.body, as: UTF8.self))
                }
                let answered = Counter()
                try await withThrowingTaskGroup(of: (String, RawHTTP.Response).self) { group in
                    group.addTask { (target(0), try await fetch(first, target(0))) }
                    try await waitUntil("the first render to be admitted", limit: .seconds(20)) { (try? await jobs("running")) == 1 }
                    for index in 1...Self.flood {
                        group.addTask {
                            defer { answered.increment() }
                            return (target(index), try await fetch(first, target(index)))
                        }
                    }
                    try await waitUntil("the flood to be queued or refused", limit: .seconds(20)) {
                        (try? await jobs("queued")).map { $0 + answered.value } == Self.flood
                    }
                    let queued = try await jobs("queued")
                    let secondAnswered = Counter()
                    group.addTask {
                        defer { secondAnswered.increment() }
                        return (secondTarget, try await fetch(second, secondTarget))
                    }
                    try await waitUntil("the second client's render to be queued or refused", limit: .seconds(20)) {
                        (try? await jobs("queued")) == queued + 1 || secondAnswered.value > 0
                    }
                    release()
                    var answers = [String: RawHTTP.Response]()
                    for try await (target, response) in group { answers[target] = response }

                    let flood = (0...Self.flood).compactMap { answers[target($0)] }
                    let refused = flood.filter { $0.status == 503 }
                    #expect(flood.count == Self.flood + 1)
                    let servedFirst = flood.filter { $0.status == 200 }.count
                    #expect(refused.count >= 3 && servedFirst >= 3, "the flood goes past the budget: \(refused.count) refused, \(servedFirst) served")
                    #expect(refused.allSatisfy { $0.header("Retry-After") == "1" }, "\(refused.map { $0.header("Retry-After") ?? "none" })")
                    #expect(servedFirst + refused.count == flood.count)
                    #expect(answers[secondTarget]?.status == 200, "the second client is not refused")
                }
            }
        }
        // Round-robin: the second client's render is answered before most of the first client's queue (first come,
        // first served would answer it last).
        let served = seen.served
        let secondAt = try #require(served.firstIndex(of: secondTarget), "\(served)")
        let firstServed = served.filter { $0 != secondTarget }.count
        #expect(secondAt < firstServed / 2, "the second client answered at \(secondAt + 1) of \(served.count): \(served)")
    }
}
