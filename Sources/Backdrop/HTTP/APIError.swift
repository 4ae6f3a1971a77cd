import Foundation
import Hummingbird

/// An error answered as JSON, `{"error": "...", "parameter": "..."}`, with its HTTP status.
struct APIError: Error, HTTPResponseError, Equatable {
    package let status: HTTPResponse.Status
    package let message: String
    /// The query parameter at fault, for 400s.
    package let parameter: String?
    package var headers: HTTPFields

    package init(status: HTTPResponse.Status, message: String, parameter: String? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.parameter = parameter
        self.headers = headers
    }

    package static func badParameter(_ name: String, _ message: String) -> APIError {
        APIError(status: .badRequest, message: message, parameter: name)
    }

    struct Body: Codable {
        let error: String
        let parameter: String?
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        self.response()
    }

    /// The JSON body alone, for the transport's answers to requests refused before they reach the router.
    var body: [UInt8] {
        Array((try? Response.jsonEncoder.encode(Body(error: self.message, parameter: self.parameter))) ?? Data())
    }

    func response() -> Response {
        (try? Response.json(Body(error: self.message, parameter: self.parameter), status: self.status, headers: self.headers))
            ?? Response(status: self.status, headers: self.headers)
    }
}
