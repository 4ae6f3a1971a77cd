import HTTPTypes
import Hummingbird
import Synchronization
import Tracing

/// One OpenTelemetry server span per traced request (only while tracing is on, see `telemetry`; which requests,
/// ``TraceSampling`` decides): named after its route, continuing a caller's W3C `traceparent`, ended when the answer
/// is ready (its body's transfer is not in it). It records the method, route, path, status, body size, the image's
/// format, the photo's source and cell and what the request's work noted in ``RequestTrace`` (cache hit or miss,
/// fallbacks). Never the coordinates (`lat` and `lon` are redacted from the query), the client's address, or a header.
struct TraceMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Which requests are traced at all; the others pass through untouched.
    let sampling: TraceSampling

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard self.sampling.traces(traceparent: request.headers[BackdropHeaders.traceparent]) else { return try await next(request, context) }
        var parent = ServiceContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HeaderExtractor())
        let route = Route.label(for: request.uri.path)
        let span = startSpan("\(request.method.rawValue) \(route)", context: parent, ofKind: .server)
        guard span.isRecording else {
            // A caller's trace that is not sampled: the request runs in the span's context, with nothing recorded
            // (no RequestTrace, so its work makes no spans).
            defer { span.end() }
            return try await ServiceContext.$current.withValue(span.context) { try await next(request, context) }
        }
        span.updateAttributes { attributes in
            attributes["http.request.method"] = request.method.rawValue
            attributes["http.route"] = route
            attributes["url.path"] = String(request.uri.path.prefix(200))
            if let query = request.uri.query { attributes["url.query"] = Self.redacted(query) }
        }
        let trace = RequestTrace()
        do {
            let response = try await ServiceContext.$current.withValue(span.context) {
                try await RequestTrace.$current.withValue(trace) { try await next(request, context) }
            }
            span.updateAttributes { attributes in
                attributes["http.response.status_code"] = Int(response.status.code)
                attributes["http.response.body.size"] = response.body.contentLength
                if let type = response.headers[.contentType], type.hasPrefix("image/") { attributes["backdrop.format"] = String(type.dropFirst(6)) }
                if let source = response.headers[BackdropHeaders.source] { attributes["backdrop.source"] = source }
                if let cell = response.headers[BackdropHeaders.cell] { attributes["backdrop.cell"] = cell }
                trace.apply(to: &attributes)
            }
            if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
            // Ended with the answer ready, not once its body is written: wrapping the body in a writer of our own
            // would turn Hummingbird's one write of head, body and end into three (a quarter of a cache hit's time).
            span.end()
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            span.updateAttributes { attributes in
                attributes["http.response.status_code"] = Int(status)
                trace.apply(to: &attributes)
            }
            if status >= 500 {
                span.setStatus(SpanStatus(code: .error))
                span.recordError(error)
            }
            span.end()
            throw error
        }
    }

    /// The query with the values of `lat` and `lon` replaced, at most 200 characters.
    static func redacted(_ query: String) -> String {
        let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { part -> String in
            let name = part.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            return ["lat", "lon"].contains(name.lowercased()) ? "\(name)=REDACTED" : String(part)
        }
        return String(parts.joined(separator: "&").prefix(200))
    }

    private struct HeaderExtractor: Extractor {
        func extract(key name: String, from headers: HTTPFields) -> String? {
            HTTPField.Name(name).flatMap { headers[$0] }
        }
    }
}

/// What a request's work learns that its server span should say (a cache hit or miss, a fallback), noted from
/// wherever the work runs through the task-local ``current``; nil while tracing is off.
final class RequestTrace: Sendable {
    @TaskLocal static var current: RequestTrace?

    private let notes = Mutex<[(String, String)]>([])

    /// Sets `key` to `value` on the request's server span (the last note of a key wins).
    static func note(_ key: String, _ value: String) {
        self.current?.notes.withLock { $0.append((key, value)) }
    }

    fileprivate func apply(to attributes: inout SpanAttributes) {
        for (key, value) in self.notes.withLock({ $0 }) { attributes[key] = value }
    }
}
