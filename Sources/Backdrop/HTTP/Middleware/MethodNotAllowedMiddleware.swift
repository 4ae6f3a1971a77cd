import Hummingbird

/// Answers 405 with `Allow` for a known path asked with a method it does not serve (the router would say 404).
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let route = Route(path: request.uri.path), !route.methods.contains(request.method) {
            throw APIError(
                status: .methodNotAllowed,
                message: "\(request.method.rawValue) is not allowed here",
                headers: [.allow: route.methods.map(\.rawValue).joined(separator: ", ")]
            )
        }
        return try await next(request, context)
    }
}
