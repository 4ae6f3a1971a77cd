import Hummingbird
import Logging

/// One log line per request: method, path (never the query, so no raw coordinates), status, duration, and the
/// photo source and geohash cell when the handler recorded them (``RequestFacts``). Requests shed under overload (503) are summed up
/// instead (``ShedSummary``). Every answer gets `X-Content-Type-Options: nosniff`.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: BackdropMetrics
    let shed: ShedSummary

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        context.logger.debug("request started", metadata: ["method": "\(request.method.rawValue)", "path": "\(request.uri.path.prefix(200))"])
        var (response, facts) = try await RequestFacts.recording { try await next(request, context) }
        response.headers[.xContentTypeOptions] = BackdropHeaders.noSniff
        let elapsed = ContinuousClock.now - start
        if response.status == .serviceUnavailable {
            self.shed.record(logger: context.logger)
        } else if context.logger.logLevel <= .info {
            var metadata: Logger.Metadata = [
                "method": "\(request.method.rawValue)",
                "path": "\(request.uri.path.prefix(200))",
                "status": "\(response.status.code)",
                "ms": "\(elapsed.loggedMilliseconds)",
            ]
            let recorded = facts.recorded
            if let source = recorded.source { metadata["source"] = "\(source)" }
            if let cell = recorded.cell { metadata["cell"] = "\(cell)" }
            context.logger.info("request", metadata: metadata)
        }
        let route = Route.label(endpoint: context.endpointPath, path: request.uri.path)
        self.metrics.request(route: route, status: Int(response.status.code), duration: elapsed)
        return response
    }
}

extension Duration {
    /// Milliseconds to one decimal, as request logs show them.
    var loggedMilliseconds: Double {
        (self / .milliseconds(1) * 10).rounded() / 10
    }
}
