import HTTPTypes
import Hummingbird
import Synchronization
import Tracing

/// One OpenTelemetry server span per traced request (only while tracing is on, see `telemetry`; which requests,
/// ``TraceSampling`` decides): named after its route, continuing a caller's W3C `traceparent`, ended when the answer
/// is ready (its body's transfer is not in it). It records the method, route, path, status, body size, the image's
/// format, the photo's source and cell and what the request's work noted in ``RequestTrace`` (cache hit or miss,
/// fallbacks). Never the coordinates (only the values of the API's non-sensitive parameters are kept in the query),
/// the client's address, or a header.
///
/// A caller's `traceparent` is continued only when it is valid W3C Trace Context and comes from whom
/// `telemetry.trustIncomingTraceparent` trusts (by default a proxy of `server.trustedProxies`); any other starts a new
/// trace that the sampler decides as if there were none, so that no client can force traces on.
struct TraceMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    /// Which requests are traced at all; the others pass through untouched.
    let sampling: TraceSampling
    let trust: TraceparentTrust
    /// Which peers are proxies of ours (for `trust` `.trusted`).
    let proxies: ClientAddress

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let incoming = self.incoming(request.headers[BackdropHeaders.traceparent], peer: context.remoteAddress?.ipAddress)
        guard self.sampling.traces(traceparent: incoming) else { return try await next(request, context) }
        var parent = ServiceContext.current ?? .topLevel
        if incoming != nil { InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HeaderExtractor()) }
        let route = Route.label(endpoint: nil, path: request.uri.path)  // until the router has matched
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
            let (response, facts) = try await RequestFacts.recording {
                try await ServiceContext.$current.withValue(span.context) {
                    try await RequestTrace.$current.withValue(trace) { try await next(request, context) }
                }
            }
            let recorded = facts.recorded
            let matched = Route.label(endpoint: context.endpointPath, path: request.uri.path)
            if matched != route { span.operationName = "\(request.method.rawValue) \(matched)" }
            span.updateAttributes { attributes in
                attributes["http.route"] = matched
                attributes["http.response.status_code"] = Int(response.status.code)
                attributes["http.response.body.size"] = response.body.contentLength
                if let format = recorded.format { attributes["backdrop.format"] = format.rawValue }
                if let source = recorded.source { attributes["backdrop.source"] = source }
                if let cell = recorded.cell { attributes["backdrop.cell"] = cell }
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

    /// The caller's `traceparent` when it is to be continued: valid, and from a caller `trust` allows.
    func incoming(_ traceparent: String?, peer: String?) -> String? {
        guard let traceparent, Self.isValid(traceparent) else { return nil }
        switch self.trust {
        case .always: return traceparent
        case .never: return nil
        case .trusted: return self.proxies.trusts(peer: peer) ? traceparent : nil
        }
    }

    /// W3C Trace Context's `traceparent`: `version-traceid-parentid-flags` in lower-case hex, version not `ff`, ids
    /// not all zero; version `00` exactly 55 characters, a later version at least that and `-` after its flags.
    static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 55, bytes.count <= 512, bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-")
        else { return false }
        func hex(_ range: Range<Int>) -> Bool {
            bytes[range].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
        }
        func zero(_ range: Range<Int>) -> Bool { bytes[range].allSatisfy { $0 == UInt8(ascii: "0") } }
        guard hex(0..<2), hex(3..<35), hex(36..<52), hex(53..<55), !zero(3..<35), !zero(36..<52), bytes[0..<2] != [0x66, 0x66] else { return false }
        return bytes[0..<2] == [0x30, 0x30] ? bytes.count == 55 : bytes.count == 55 || bytes[55] == UInt8(ascii: "-")
    }

    /// The query with every value redacted but those of the API's parameters that say nothing of where the client is,
    /// spelled literally; a name that is not plain (percent-encoded, say) is redacted whole. At most 200 characters.
    static func redacted(_ query: String) -> String {
        let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { part -> String in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = pieces[0]
            guard !name.isEmpty, name.count <= 32, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
                return "REDACTED"
            }
            guard pieces.count == 2 else { return String(name) }
            return Self.plainParameters.contains(String(name)) ? String(part) : "\(name)=REDACTED"
        }
        return String(parts.joined(separator: "&").prefix(200))
    }

    /// Parameters whose values spans keep (the cell is recorded anyway, as `backdrop.cell`).
    static var plainParameters: Set<String> { ["cell", "blur", "width", "height", "dpr", "style", "format"] }

    private struct HeaderExtractor: Extractor {
        func extract(key name: String, from headers: HTTPFields) -> String? {
            HTTPField.Name(name).flatMap { headers[$0] }
        }
    }
}
