import Foundation

/// A bound on how long an exchange may take in all: URLSession's own timeout restarts with every byte, so a server
/// that trickles would hold a call for ever without this.
struct Deadline: Sendable {
    let seconds: TimeInterval

    /// `work`'s result, or ``BackdropError/timedOut(seconds:)`` once `seconds` have passed (the work is cancelled).
    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws(BackdropError) -> T {
        let nanoseconds = UInt64(max(0, min(self.seconds, 86_400)) * 1_000_000_000)
        let first = await withTaskGroup(of: Result<T, any Error>?.self) { group in
            group.addTask {
                do { return .success(try await work()) } catch { return .failure(error) }
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: nanoseconds)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        switch first {
        case .success(let value): return value
        case .failure(let error): throw BackdropError(error, timeout: self.seconds)
        case nil: throw Task.isCancelled ? .cancelled : .timedOut(seconds: self.seconds)
        }
    }
}
