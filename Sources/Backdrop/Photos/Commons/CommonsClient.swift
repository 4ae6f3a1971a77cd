import AsyncHTTPClient
import NIOHTTP1

/// Commons' API over HTTPS with JSON (``JSONGet``), with the User-Agent Wikimedia's policy asks for.
struct CommonsClient: Sendable {
    let get: JSONGet
    let endpoint: String

    /// The longest a `Retry-After` is honoured.
    static let longestRetry = 3600.0

    /// One search; throws ``CommonsError``.
    func search(_ query: CommonsSearchQuery, near cell: Geohash) async throws -> [CandidatePhoto] {
        let body: [UInt8]
        do {
            body = try await self.get.get(query.url(endpoint: self.endpoint))
        } catch let failure as JSONGet.Failure {
            throw Self.error(failure, timeout: self.get.timeout)
        }
        return try CommonsSearchResponse.parse(body, near: cell)
    }

    static func error(_ failure: JSONGet.Failure, timeout: Duration) -> CommonsError {
        switch failure {
        case .unreachable(let error):
            // Nothing came back at all: no name, no route, no connection. The whole source backs off.
            CommonsError(.transient, "Commons could not be reached: \(error)", unreachable: true)
        case .status(let code, let headers):
            CommonsError(
                code == 429 || code >= 500 ? .transient : .failed,
                "Commons answered HTTP \(code)",
                retryAfter: code == 429 ? (Self.retryAfter(headers) ?? 60) : Self.retryAfter(headers)
            )
        case .tooLarge: CommonsError(.malformed, "Commons' answer is too large")
        case .cutOff(let error): CommonsError(.transient, "Commons' answer was cut off: \(error)")
        case .timedOut: CommonsError(.transient, "Commons did not answer within \(Int(timeout / .milliseconds(1))) ms")
        }
    }

    private static func retryAfter(_ headers: HTTPHeaders) -> Double? {
        headers.first(name: "Retry-After").flatMap(Double.init).map { min(max($0, 1), Self.longestRetry) }
    }
}
