import Hummingbird
import Logging

/// Turns every error into a JSON answer with the right status: API errors as they are, Hummingbird's own
/// (404 and the like) with their status, overload as 503, and anything unexpected as a logged 500.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return error.response()
        } catch let busy as RenderBusy {
            return APIError(
                status: .serviceUnavailable,
                message: "too many renders in progress, try again shortly",
                headers: [.retryAfter: String(busy.retryAfter)]
            ).response()
        } catch is CancellationError where Task.isCancelled {
            // The client went while its request was in flight (see BackdropHTTP1Channel): nobody reads this answer.
            // It is logged and counted as nginx does, 499.
            return Response(status: .clientClosedRequest)
        } catch let error as any HTTPResponseError {
            let message = error.status == .notFound ? "no such resource: \(request.uri.path.prefix(200))" : error.status.reasonPhrase
            return APIError(status: error.status, message: message).response()
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(describing: error).prefix(300))"])
            return APIError(status: .internalServerError, message: "internal error").response()
        }
    }
}

extension HTTPResponse.Status {
    /// nginx's status for a request whose client closed the connection before the answer (never sent).
    static let clientClosedRequest = HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")
}
