import HTTPTypes
import Hummingbird

/// CORS for a public, read-only API (`server.corsOrigins`), on every route and every status the router answers, errors
/// included, so that a script on another site can read the JSON, the attribution headers and the error bodies:
/// - `*` (the default): `Access-Control-Allow-Origin: *` on every answer;
/// - a list of origins: the request's `Origin` echoed when it is listed, and `Vary: Origin` on every answer (so that a
///   cache never hands one origin's answer to another);
/// - an empty list: CORS off, nothing added.
/// A preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 with the methods (`GET, HEAD`) and
/// request headers (`Accept`, `If-None-Match`, `If-Modified-Since`) allowed and a max age of a day. Credentials are
/// never allowed: there is nothing private to read. `/metrics` is left out: it is for the operator's scraper.
struct CORSMiddleware<Context: RequestContext>: RouterMiddleware {
    let origins: CORSOrigins

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Metrics are for the operator's scraper, never for pages on other sites.
        guard self.origins.isEnabled, request.uri.path != Route.metrics.path else { return try await next(request, context) }
        let origin = request.headers[.origin]
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var response = Response(status: .noContent)
            self.addOrigin(origin, to: &response.headers)
            if response.headers[.accessControlAllowOrigin] != nil {
                response.headers[.accessControlAllowMethods] = "GET, HEAD"
                response.headers[.accessControlAllowHeaders] = "Accept, If-None-Match, If-Modified-Since"
                response.headers[.accessControlMaxAge] = "86400"
            }
            return response
        }
        var response = try await next(request, context)
        self.addOrigin(origin, to: &response.headers)
        if response.headers[.accessControlAllowOrigin] != nil {
            response.headers[.accessControlExposeHeaders] = BackdropHeaders.exposedToScripts
        }
        return response
    }

    private func addOrigin(_ origin: String?, to headers: inout HTTPFields) {
        switch self.origins {
        case .any:
            headers[.accessControlAllowOrigin] = "*"
        case .listed(let allowed):
            let vary = headers[values: .vary]
            if !vary.contains(where: { $0.caseInsensitiveCompare("Origin") == .orderedSame }) {
                headers[.vary] = (vary + ["Origin"]).joined(separator: ", ")
            }
            if let origin, allowed.contains(origin) { headers[.accessControlAllowOrigin] = origin }
        }
    }
}

/// `server.corsOrigins` read: any origin, a list of origins (`https://example.com`, `http://localhost:3000`), or none.
package enum CORSOrigins: Sendable, Equatable {
    case any
    case listed(Set<String>)

    var isEnabled: Bool { self != .listed([]) }

    /// Nil when an entry is neither `*` nor an origin (`scheme://host[:port]`, no path).
    package init?(_ entries: [String]) {
        if entries.contains("*") {
            guard entries.count == 1 else { return nil }
            self = .any
            return
        }
        var origins = Set<String>()
        for entry in entries {
            guard let origin = Self.normalised(entry) else { return nil }
            origins.insert(origin)
        }
        self = .listed(origins)
    }

    /// `scheme://host[:port]` in lower case, as browsers send `Origin`; nil for anything else.
    static func normalised(_ entry: String) -> String? {
        let parts = entry.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, ["http", "https"].contains(parts[0].lowercased()) else { return nil }
        let authority = parts[1]
        let host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard !host[0].isEmpty, Settings.isHostName(String(host[0])) || host[0].hasPrefix("["),
            host.count == 1 || (host[1].allSatisfy(\.isNumber) && !host[1].isEmpty && Int(host[1]).map { (1...65535).contains($0) } == true)
        else { return nil }
        return entry.lowercased()
    }
}
