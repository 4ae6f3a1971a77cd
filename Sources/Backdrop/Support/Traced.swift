import Tracing

/// A span of a request's work, child of the current one; only when the request is traced (its server span is
/// recorded, see ``TraceMiddleware``). Otherwise `body` runs with a no-op span: a request left out by sampling makes
/// no span at all, and never a trace of its own from its children.
func withRequestSpan<T>(
    _ name: String,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (any Span) async throws -> T
) async rethrows -> T {
    guard RequestTrace.current != nil else { return try await body(NoOpTracer.NoOpSpan(context: .topLevel)) }
    return try await withSpan(name) { span in try await body(span) }
}

/// The context to hand to work that leaves the task (a thread-pool thread, which task-locals do not reach) for its
/// spans: the current one while the request is traced, else nil.
var requestTraceContext: ServiceContext? {
    RequestTrace.current != nil ? ServiceContext.current : nil
}

/// Synchronous work in a span whose parent is `parent` (``requestTraceContext``, captured before the work was
/// handed over); no span when it is nil.
func traced<T>(_ name: String, parent: ServiceContext?, _ body: () throws -> T) rethrows -> T {
    guard let parent else { return try body() }
    return try withSpan(name, context: parent) { _ in try body() }
}
