
@testable import Backdrop

/// What the metrics say, read from their Prometheus text.
enum MetricsText {
    static func metric(_ metrics: BackdropMetrics, _ line: String) -> Double? {
        metrics.exposition().split(separator: "\n").first { $0.hasPrefix(line + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }
}

/// The gauge `backdrop_render_jobs{state="…"}` (`queued` or `running`) in a /metrics text; 0 when it is absent.
func renderJobs(_ state: String, in metrics: String) -> Int {
    let line = metrics.split(separator: "\n").first { $0.hasPrefix("backdrop_render_jobs{state=\"\(state)\"} ") }
    return line.flatMap { Double($0.split(separator: " ")[1]) }.map(Int.init) ?? 0
}
