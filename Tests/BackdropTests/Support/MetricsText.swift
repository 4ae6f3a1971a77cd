@testable import Backdrop

/// What the metrics say, read from their Prometheus text.
enum MetricsText {
    static func metric(_ metrics: BackdropMetrics, _ line: String) -> Double? {
        Self.value(metrics.exposition(), line)
    }

    /// The value of the series `line` (its name and labels) in a /metrics text; nil when it is absent.
    static func value(_ text: String, _ line: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(line + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }
}

/// The gauge `backdrop_render_jobs{state="…"}` (`queued` or `running`) in a /metrics text; 0 when it is absent.
func renderJobs(_ state: String, in metrics: String) -> Int {
    MetricsText.value(metrics, "backdrop_render_jobs{state=\"\(state)\"}").map { Int($0) } ?? 0
}
