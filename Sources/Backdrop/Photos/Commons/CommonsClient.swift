import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// Commons' API over HTTPS with JSON (``JSONGet``), with the User-Agent Wikimedia's policy asks for.
struct CommonsClient: Sendable {
    let get: JSONGet
    let endpoint: String
    /// What is left out by its categories.
    var keepOut = KeptOut()

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
        return try CommonsSearchResponse.parse(body, near: cell, keepOut: self.keepOut)
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
                retryAfter: code == 429 ? (Self.retryAfter(headers) ?? 60) : code == 503 ? Self.retryAfter(headers) : nil
            )
        case .tooLarge: CommonsError(.malformed, "Commons' answer is too large")
        case .cutOff(let error): CommonsError(.transient, "Commons' answer was cut off: \(error)")
        case .timedOut: CommonsError(.transient, "Commons did not answer within \(Int(total: timeout / .milliseconds(1))) ms")
        }
    }

    /// `Retry-After` in seconds, as a number of seconds or an HTTP date, between 1 s and ``longestRetry``; nil when it
    /// is neither (a NaN, a word, a date gone by).
    static func retryAfter(_ headers: HTTPHeaders, now: Date = Date()) -> Double? {
        guard let value = headers.first(name: "Retry-After")?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        let seconds: Double
        if value.utf8.allSatisfy({ (48...57).contains($0) }) {
            seconds = Double(value.prefix(9)) ?? 0
        } else if let date = Self.httpDate(value) {
            seconds = date.timeIntervalSince(now).rounded(.up)
        } else {
            return nil
        }
        return seconds >= 1 ? min(seconds, Self.longestRetry) : nil
    }

    /// An HTTP date in its preferred form (`Sun, 06 Nov 1994 08:49:37 GMT`).
    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
