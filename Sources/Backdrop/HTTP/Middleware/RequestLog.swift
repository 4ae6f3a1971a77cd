import Logging

/// A request's log line and its count in the metrics, written alike for the router's answers
/// (``RequestLogMiddleware``) and the hits sent again beneath it (``HitReplayHandler``).
enum RequestLog {
    /// At debug, when a request reaches the service.
    static func started(method: String, path: Substring, logger: Logger) {
        logger.debug("request started", metadata: ["method": "\(method)", "path": "\(path.prefix(200))"])
    }

    /// One line at info (method, path, never the query; status, duration, the photo's source and cell when known) and
    /// the request's count and duration under its route (`counts`).
    static func finished(
        method: String,
        path: Substring,
        status: Int,
        elapsed: Duration,
        source: String?,
        cell: String?,
        logger: Logger,
        counts: BackdropMetrics.RequestCounts
    ) {
        if logger.logLevel <= .info {
            var metadata: Logger.Metadata = [
                "method": "\(method)",
                "path": "\(path.prefix(200))",
                "status": "\(status)",
                "ms": "\(elapsed.loggedMilliseconds)",
            ]
            if let source { metadata["source"] = "\(source)" }
            if let cell { metadata["cell"] = "\(cell)" }
            logger.info("request", metadata: metadata)
        }
        counts.record(elapsed)
    }
}

extension Duration {
    /// Milliseconds to one decimal, as request logs show them.
    var loggedMilliseconds: Double {
        (self / .milliseconds(1) * 10).rounded() / 10
    }
}
