import Foundation
import Testing

@testable import BackdropKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers every request at once with a small body, in the process: calls that end as fast as a call can.
final class InstantProtocol: URLProtocol, @unchecked Sendable {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let url = self.request.url ?? URL(fileURLWithPath: "/")
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "text/plain"])
        if let response { self.client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed) }
        self.client?.urlProtocol(self, didLoad: Data("ok".utf8))
        self.client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}

@Suite(.serialized) struct DeadlineTests {
    @Test func aHundredFastCallsLeaveNoTimerBehind() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [InstantProtocol.self]
        let session = URLSession(configuration: configuration)
        let armed = Counter()  // this test's timers only: other suites' calls run meanwhile
        for n in 0..<100 {
            let request = URLRequest(url: try #require(URL(string: "http://backdrop.invalid/health?\(n)")))
            let (body, _) = try await Deadline(seconds: 10, armed: armed.add).exchange(request, session: session)
            #expect(body == Data("ok".utf8))
        }
        // A timer's cancellation is handled on its queue: wait for it, at most 5 s (a timer left armed would stay 10 s).
        let limit = Date().addingTimeInterval(5)
        while armed.value > 0 && Date() < limit { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(armed.value == 0, "\(armed.value) deadline timers still armed after 100 calls ended")
    }

    @Test func theDeadlineStillEndsACallThatOutlivesIt() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [SilentProtocol.self]
        let session = URLSession(configuration: configuration)
        let request = URLRequest(url: try #require(URL(string: "http://backdrop.invalid/background.json")))
        let started = Date()
        await #expect(throws: BackdropError.timedOut(seconds: 0.2)) { try await Deadline(seconds: 0.2).exchange(request, session: session) }
        #expect(Date().timeIntervalSince(started) < 5, "ended by its deadline, not by the session")
    }
}

/// Never answers: a call through it ends only by its deadline.
final class SilentProtocol: URLProtocol, @unchecked Sendable {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() {}
    override func stopLoading() {}
}

/// A count shared across threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    @Sendable func add(_ amount: Int) {
        self.lock.lock()
        self.count += amount
        self.lock.unlock()
    }

    var value: Int {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.count
    }
}
