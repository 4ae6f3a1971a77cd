import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// One GET of a source's JSON API through AsyncHTTPClient, within `timeout` for the whole exchange (the head and every
/// byte of the body) and reading at most `maxBytes`: what Flickr's and Commons' searches share. Each source turns the
/// ``Failure`` into its own error.
struct JSONGet: Sendable {
    let http: HTTPClient
    let userAgent: String
    let timeout: Duration
    /// The most of an answer read: a search answer is tens of kilobytes, and one odd file in it may be megabytes.
    var maxBytes = 4 << 20

    enum Failure: Error {
        /// Nothing came back at all: no name, no route, no connection (the description of the client's error).
        case unreachable(String)
        /// An answer other than 200, its body drained (up to 64 kB).
        case status(Int, HTTPHeaders)
        /// The body is longer than `maxBytes`.
        case tooLarge
        /// The connection broke while the body was read.
        case cutOff(String)
        /// The whole exchange took longer than the timeout.
        case timedOut
    }

    /// The body of a 200 answer to `url`; throws ``Failure`` (or `CancellationError`).
    func get(_ url: String) async throws -> [UInt8] {
        do {
            return try await withDeadline(self.timeout) { try await self.exchange(url) }
        } catch is DeadlinePassed {
            throw Failure.timedOut
        }
    }

    private func exchange(_ url: String) async throws -> [UInt8] {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: self.userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        do {
            response = try await self.http.execute(request, timeout: TimeAmount(self.timeout))
        } catch {
            throw Failure.unreachable(String(describing: error))
        }
        guard response.status == .ok else {
            _ = try? await response.body.collect(upTo: 64 << 10)
            throw Failure.status(Int(response.status.code), response.headers)
        }
        do {
            return Array(buffer: try await response.body.collect(upTo: self.maxBytes))
        } catch is NIOTooManyBytesError {
            throw Failure.tooLarge
        } catch {
            throw Failure.cutOff(String(describing: error))
        }
    }
}
