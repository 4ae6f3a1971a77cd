import Tracing

/// Synchronous work in a span whose parent is `parent`: for work on a thread-pool thread, where the task's context
/// does not reach, so the caller captures `ServiceContext.current` before handing the work over. While tracing is off
/// the spans are no-ops.
func traced<T>(_ name: String, parent: ServiceContext?, _ body: () throws -> T) rethrows -> T {
    guard let parent else { return try body() }
    return try withSpan(name, context: parent) { _ in try body() }
}
