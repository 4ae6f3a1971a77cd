import CoreMetrics
import Foundation
import NIOCore
import Prometheus
import Synchronization

/// Backdrop's metrics, made through one factory (Prometheus in the service, a fresh registry per test) so that nothing
/// depends on a process-wide bootstrap. Labels are low-cardinality: routes, statuses, kinds, outcomes; never ids.
package struct BackdropMetrics: Sendable {
    package let registry: PrometheusCollectorRegistry
    let factory: any MetricsFactory
    /// Request metrics by route and status, made once: the hot path should not look them up in the registry each time.
    private let requestMetrics = Handles()
    /// Responses whose body went out from a cache file with `sendfile`.
    private let fileBodies: CoreMetrics.Counter

    private final class Handles: Sendable {
        let byKey = Mutex<[String: (CoreMetrics.Counter, CoreMetrics.Timer)]>([:])
    }

    package init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (String(String.UnicodeScalarView(name.unicodeScalars.map { $0 == "." ? "_" : $0 })), labels)
        }
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        self.registry = registry
        self.factory = factory
        self.fileBodies = Counter(label: "backdrop.responses.sendfile.total", factory: factory)
    }

    func sentFromFile() {
        self.fileBodies.increment()
    }

    /// A connection closed by the transport: `peer` (the client closed with nothing in flight), `idle_timeout`,
    /// `head_timeout`.
    func connectionClosed(_ reason: String) {
        Counter(label: "backdrop.connections.closed.total", dimensions: [("reason", reason)], factory: self.factory).increment()
    }

    func request(route: String, status: Int, duration: Duration) {
        let key = "\(route) \(status)"
        let (counter, timer) = self.requestMetrics.byKey.withLock { handles in
            if let found = handles[key] { return found }
            let made = (
                Counter(label: "backdrop.requests.total", dimensions: [("route", route), ("status", String(status))], factory: self.factory),
                Timer(label: "backdrop.request.duration.seconds", dimensions: [("route", route)], factory: self.factory)
            )
            handles[key] = made
            return made
        }
        counter.increment()
        timer.recordNanoseconds(TimeAmount(duration).nanoseconds)
    }

    enum CacheEvent: String {
        case hit = "hits"
        case miss = "misses"
        case eviction = "evictions"
    }

    func cache(_ event: CacheEvent, kind: String) {
        Counter(label: "backdrop.cache.\(event.rawValue).total", dimensions: [("kind", kind)], factory: self.factory).increment()
    }

    /// The render queue now: jobs waiting for a worker, and jobs running.
    func renderJobs(queued: Int, running: Int) {
        Gauge(label: "backdrop.render.jobs", dimensions: [("state", "queued")], factory: self.factory).record(queued)
        Gauge(label: "backdrop.render.jobs", dimensions: [("state", "running")], factory: self.factory).record(running)
    }

    func cacheBytes(kind: String, bytes: Int) {
        Gauge(label: "backdrop.cache.bytes", dimensions: [("kind", kind)], factory: self.factory).record(bytes)
    }

    /// `operation`: read or write.
    func cacheError(_ operation: String) {
        Counter(label: "backdrop.cache.errors.total", dimensions: [("operation", operation)], factory: self.factory).increment()
    }

    /// A search call to a photo source (`flickr`, `commons`), by outcome: ok, empty, invalid_key, transient, failed,
    /// malformed, quota.
    func sourceCall(_ source: String, _ outcome: String) {
        Counter(label: "backdrop.source.calls.total", dimensions: [("source", source), ("outcome", outcome)], factory: self.factory).increment()
    }

    /// A request's upstream deadline passed; it got a fallback photo.
    func deadlinePassed() {
        Counter(label: "backdrop.upstream.deadlines.total", factory: self.factory).increment()
    }

    /// A `/background` image answered (200) or confirmed (304), by format (`png`, `jpeg`, `webp`, `avif`).
    func image(_ format: String, status: Int) {
        Counter(label: "backdrop.images.total", dimensions: [("format", format), ("status", String(status))], factory: self.factory)
            .increment()
    }

    /// A lossy render's fidelity check (``FittedQuality``), by format: `first`, `second`, `short` or `clear`.
    func fidelity(_ format: String, outcome: String) {
        Counter(label: "backdrop.render.fidelity.total", dimensions: [("format", format), ("outcome", outcome)], factory: self.factory)
            .increment()
    }

    /// The quality gate's verdict on a photo from elsewhere, once per photo prepared: pass, dark, bright, clipped,
    /// blurred or flat.
    func photoQuality(_ verdict: String) {
        Counter(label: "backdrop.photos.quality.total", dimensions: [("verdict", verdict)], factory: self.factory).increment()
    }

    /// `kind`: stale or stock.
    func fallback(_ kind: String) {
        Counter(label: "backdrop.fallbacks.total", dimensions: [("kind", kind)], factory: self.factory).increment()
    }

    /// How a replica's lookup of a cell-window went with the others: `searched` (it held the lease), `shared` (another
    /// replica's result), `failing` or `key_rejected` (another replica's discovery), `alone` (no database to ask).
    func clusterCell(_ outcome: String) {
        Counter(label: "backdrop.cluster.cells.total", dimensions: [("outcome", outcome)], factory: self.factory).increment()
    }

    /// A wait for another replica's lease on a cell-window, by how it ended: `shared` (its result came) or `took_over`
    /// (its lease expired: the replica holding it died or hangs).
    func clusterLeaseWait(_ outcome: String, _ duration: Duration) {
        Counter(label: "backdrop.cluster.lease.waits.total", dimensions: [("outcome", outcome)], factory: self.factory).increment()
        Timer(label: "backdrop.cluster.lease.wait.seconds", factory: self.factory)
            .recordNanoseconds(TimeAmount(duration).nanoseconds)
    }

    /// A query or connection attempt on the shared database failed or took too long, by operation.
    func clusterDatabaseError(_ operation: String) {
        Counter(label: "backdrop.cluster.database.errors.total", dimensions: [("operation", operation)], factory: self.factory).increment()
    }

    /// Calls left in a source's budget (`flickr`, `commons`) at its last call: the replica's own bucket, or the
    /// shared one as the database counted it.
    func budgetTokens(_ source: String, _ tokens: Int) {
        Gauge(label: "backdrop.source.budget.tokens", dimensions: [("source", source)], factory: self.factory).record(tokens)
    }

    /// 1 while the replica shares through the database, 0 while it works alone because the database cannot be reached.
    func clusterConnected(_ connected: Bool) {
        Gauge(label: "backdrop.cluster.connected", factory: self.factory).record(connected ? 1 : 0)
    }

    /// Prometheus text exposition.
    package func exposition() -> String { self.registry.emitToString() }
}
