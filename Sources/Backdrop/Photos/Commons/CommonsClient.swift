import AsyncHTTPClient
import NIOCore

/// Commons' API over HTTPS with JSON, through AsyncHTTPClient, with the User-Agent Wikimedia's policy asks for.
struct CommonsClient: Sendable {
    let http: HTTPClient
    let endpoint: String
    let userAgent: String
    let timeout: TimeAmount

    /// The longest a `Retry-After` is honoured.
    static let longestRetry = 3600.0

    /// One search, within `timeout` for the whole exchange; throws ``CommonsError``.
    func search(_ query: CommonsSearchQuery, near cell: Geohash) async throws -> [CandidatePhoto] {
        do {
            return try await withDeadline(.nanoseconds(self.timeout.nanoseconds)) { try await self.call(query, near: cell) }
        } catch is DeadlinePassed {
            throw CommonsError(.transient, "Commons did not answer within \(self.timeout.nanoseconds / 1_000_000) ms")
        }
    }

    private func call(_ query: CommonsSearchQuery, near cell: Geohash) async throws -> [CandidatePhoto] {
        var request = HTTPClientRequest(url: query.url(endpoint: self.endpoint))
        request.headers.add(name: "User-Agent", value: self.userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        do {
            response = try await self.http.execute(request, timeout: self.timeout)
        } catch {
            // Nothing came back at all: no name, no route, no connection. The whole source backs off.
            throw CommonsError(.transient, "Commons could not be reached: \(error)", unreachable: true)
        }
        guard response.status == .ok else {
            _ = try? await response.body.collect(upTo: 64 << 10)
            let retry = response.headers.first(name: "Retry-After").flatMap(Double.init).map { min(max($0, 1), Self.longestRetry) }
            let code = Int(response.status.code)
            let kind: CommonsError.Kind = code == 429 || code >= 500 ? .transient : .failed
            throw CommonsError(kind, "Commons answered HTTP \(code)", retryAfter: code == 429 ? (retry ?? 60) : retry)
        }
        let body: ByteBuffer
        do {
            body = try await response.body.collect(upTo: 4 << 20)
        } catch let error as NIOTooManyBytesError {
            throw CommonsError(.malformed, "Commons' answer is too large (\(error))")
        } catch {
            throw CommonsError(.transient, "Commons' answer was cut off: \(error)")
        }
        return try CommonsSearchResponse.parse(Array(buffer: body), near: cell)
    }
}
