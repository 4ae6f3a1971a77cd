import Foundation
import Hummingbird

/// An error answered as JSON, `{"error": "...", "parameter": "..."}`, with its HTTP status.
public struct APIError: Error, HTTPResponseError, Equatable {
    public let status: HTTPResponse.Status
    public let message: String
    /// The query parameter at fault, for 400s.
    public let parameter: String?
    public var headers: HTTPFields

    public init(status: HTTPResponse.Status, message: String, parameter: String? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.parameter = parameter
        self.headers = headers
    }

    public static func badParameter(_ name: String, _ message: String) -> APIError {
        APIError(status: .badRequest, message: message, parameter: name)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    struct Body: Codable {
        let error: String
        let parameter: String?
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        self.response()
    }

    func response() -> Response {
        let data = (try? Self.encoder.encode(Body(error: self.message, parameter: self.parameter))) ?? Data("{\"error\":\"error\"}".utf8)
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentLength] = String(data.count)
        headers[.cacheControl] = "no-store"
        return Response(status: self.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
