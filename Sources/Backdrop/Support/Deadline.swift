/// A request's upstream work (Flickr's searches and downloads, the render they lead to) did not finish in time.
struct DeadlinePassed: Error {}

/// Runs `work`, giving up with ``DeadlinePassed`` once `duration` has passed: `work` is then cancelled, and every wait
/// in it is cancellable (HTTP requests, shared single-flight computations), so nothing goes on after the caller has
/// given up beyond a render already running on the thread pool.
func withDeadline<T: Sendable>(_ duration: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await Task.sleep(for: duration)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw DeadlinePassed() }
        return value
    }
}
