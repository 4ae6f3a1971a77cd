import Foundation
import Hummingbird

/// Refuses request paths that are not in canonical form before anything resolves them: control bytes (a `%00` would
/// cut a file name) are a 400; empty, `.` or `..` segments and trailing slashes (`//background`, `/background/`,
/// `//evil.com`) are a 404, whatever the route.
struct PathGuardMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // As the file middleware will read it: percent-decoded (most paths have nothing to decode).
        let raw = request.uri.path
        guard let path = raw.utf8.contains(UInt8(ascii: "%")) ? raw.removingPercentEncoding : raw else {
            throw APIError(status: .badRequest, message: "the path is not valid percent-encoded UTF-8")
        }
        // Control characters are single bytes in UTF-8: no byte of a longer character is below 0x80.
        guard !path.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw APIError(status: .badRequest, message: "the path contains control characters")
        }
        guard Self.isCanonical(path) else {
            throw APIError(status: .notFound, message: "no such resource: \(path.prefix(200))")
        }
        return try await next(request, context)
    }

    /// `/` alone, or `/` followed by non-empty segments other than `.` and `..`, without a trailing slash.
    static func isCanonical(_ path: String) -> Bool {
        let bytes = path.utf8
        guard bytes.first == UInt8(ascii: "/") else { return false }
        guard bytes.count > 1 else { return true }
        // The segment being read: its length, and how many of its bytes are dots.
        var (length, dots) = (0, 0)
        func ends() -> Bool { length > 0 && !(dots == length && length <= 2) }
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "/") {
                guard ends() else { return false }
                (length, dots) = (0, 0)
            } else {
                length += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return ends()
    }
}
