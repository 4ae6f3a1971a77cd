import Foundation
import Hummingbird

/// Refuses request paths that are not in canonical form before anything resolves them: control bytes (a `%00` would
/// cut a file name) are a 400; empty, `.` or `..` segments and trailing slashes (`//background`, `/background/`,
/// `//evil.com`) are a 404, whatever the route.
struct PathGuardMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // As the file middleware will read it: percent-decoded.
        guard let path = request.uri.path.removingPercentEncoding else {
            throw APIError(status: .badRequest, message: "the path is not valid percent-encoded UTF-8")
        }
        guard !path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw APIError(status: .badRequest, message: "the path contains control characters")
        }
        guard Self.isCanonical(path) else {
            throw APIError(status: .notFound, message: "no such resource: \(path.prefix(200))")
        }
        return try await next(request, context)
    }

    /// `/` alone, or `/` followed by non-empty segments other than `.` and `..`, without a trailing slash.
    static func isCanonical(_ path: String) -> Bool {
        guard path.first == "/" else { return false }
        if path == "/" { return true }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }
}
