import Hummingbird

/// Every path Backdrop answers, with the methods it serves there: the router's handlers, the 405s with `Allow` and the
/// metric labels all come from this one table.
enum Route: String, CaseIterable, Sendable {
    case background = "/background"
    case backgroundInfo = "/background.json"
    case health = "/health"
    case metrics = "/metrics"
    case openAPI = "/openapi.yaml"
    /// The demo page, served from the public folder (as is any file there).
    case root = "/"

    /// Every route is read-only: `HEAD` is answered wherever `GET` is.
    var methods: [HTTPRequest.Method] { [.get, .head] }

    var path: String { self.rawValue }

    /// The path as the router matches it.
    var routerPath: RouterPath { RouterPath(self.rawValue) }

    /// The route a request path names, if any.
    init?(path: String) {
        self.init(rawValue: path)
    }

    /// The metric and span label of a request: the route of the router's endpoint path where the router matched one,
    /// else the route a path names (the demo page, methods refused before routing), else "other" (Hummingbird's
    /// "NotFound" included), so that unknown paths cannot grow the label set.
    static func label(endpoint: String?, path: String) -> String {
        (endpoint.flatMap { Route(path: $0) } ?? Route(path: path))?.path ?? "other"
    }
}
