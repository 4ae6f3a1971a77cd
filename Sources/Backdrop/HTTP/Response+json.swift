import Foundation
import Hummingbird

extension Response {
    static let jsonEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A JSON response with `Content-Length` and `Cache-Control` (`no-store` unless given), on top of `headers`.
    static func json(
        _ value: some Encodable,
        status: HTTPResponse.Status = .ok,
        headers: HTTPFields = [:],
        cacheControl: String = "no-store"
    ) throws -> Response {
        let data = try Self.jsonEncoder.encode(value)
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentLength] = String(data.count)
        headers[.cacheControl] = cacheControl
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

}
