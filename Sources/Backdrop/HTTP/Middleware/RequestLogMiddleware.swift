import Hummingbird
import Logging

/// One log line per request (``RequestLog``): method, path (never the query, so no raw coordinates), status, duration,
/// and the photo source and geohash cell when the handler recorded them (``RequestFacts``). Requests shed under
/// overload (503) are summed up instead (``ShedSummary``). Every answer gets `X-Content-Type-Options: nosniff`.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: BackdropMetrics
    let shed: ShedSummary

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        RequestLog.started(method: request.method.rawValue, path: request.uri.path[...], logger: context.logger)
        var (response, facts) = try await RequestFacts.recording { try await next(request, context) }
        response.headers[.xContentTypeOptions] = BackdropHeaders.noSniff
        let elapsed = ContinuousClock.now - start
        let route = Route.label(endpoint: context.endpointPath, path: request.uri.path)
        if response.status == .serviceUnavailable {
            self.shed.record(logger: context.logger)
            self.metrics.request(route: route, status: Int(response.status.code), duration: elapsed)
            return response
        }
        let recorded = facts.recorded
        RequestLog.finished(
            method: request.method.rawValue,
            path: request.uri.path[...],
            status: Int(response.status.code),
            elapsed: elapsed,
            source: recorded.source,
            cell: recorded.cell,
            logger: context.logger,
            counts: self.metrics.requestCounts(route: route, status: Int(response.status.code))
        )
        return response
    }
}
