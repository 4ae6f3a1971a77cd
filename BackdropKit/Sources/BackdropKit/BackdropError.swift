import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a call to Backdrop gave no answer: the API's own errors (its JSON `{"error", "parameter"}` with the status),
/// or the way there.
public enum BackdropError: Error, Sendable, Hashable {
    /// 400: a parameter the API refused, named as the API names it (`lat`, `lon`, `cell`, `width`, `height`, …).
    case badRequest(parameter: String?, message: String)
    /// 406: the `Accept` header named no format Backdrop encodes. The client always names formats, so this comes
    /// only from something between that rewrites the header.
    case notAcceptable(message: String)
    /// 503: too many renders queued; ask again after `retryAfter` seconds (the service's `Retry-After`, at least 1).
    case busy(retryAfter: Int, message: String)
    /// Any other status the service answered with.
    case server(status: Int, message: String)
    /// No answer within the client's timeout.
    case timedOut(seconds: Double)
    /// The service could not be reached (offline, refused, reset): the URL error's code and description.
    case unreachable(code: Int, description: String)
    /// An answer that is not what the API describes.
    case invalidResponse(String)
    /// The calling task was cancelled.
    case cancelled

    /// Whether asking again later may succeed (everything but the API refusing the request itself).
    public var isTransient: Bool {
        switch self {
        case .badRequest, .notAcceptable, .cancelled: false
        case .server(let status, _): status >= 500
        case .busy, .timedOut, .unreachable, .invalidResponse: true
        }
    }

    /// The error an API answer with `status` and `body` stands for.
    static func answer(status: Int, body: Data, retryAfter: String?) -> BackdropError {
        let decoded = try? JSONDecoder().decode(Body.self, from: body)
        let message = decoded?.error ?? HTTPURLResponse.localizedString(forStatusCode: status)
        switch status {
        case 400: return .badRequest(parameter: decoded?.parameter, message: message)
        case 406: return .notAcceptable(message: message)
        case 503: return .busy(retryAfter: max(1, retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 1), message: message)
        default: return .server(status: status, message: message)
        }
    }

    /// `error` as the client reports it: a URL error by its code (a timeout as ``timedOut(seconds:)`` with `timeout`),
    /// cancellation as ``cancelled``.
    init(_ error: any Error, timeout: TimeInterval) {
        if let error = error as? BackdropError {
            self = error
        } else if error is CancellationError {
            self = .cancelled
        } else if let error = error as? URLError {
            switch error.code {
            case .timedOut: self = .timedOut(seconds: timeout)
            case .cancelled: self = .cancelled
            default: self = .unreachable(code: error.code.rawValue, description: error.localizedDescription)
            }
        } else {
            self = .unreachable(code: 0, description: String(describing: error))
        }
    }

    /// The API's error body.
    struct Body: Decodable {
        let error: String
        let parameter: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case error, parameter
        }
    }
}
