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
    /// Counters, gauges and timers made once and kept: making one asks the registry (its lock, its label checks) each
    /// time, a twentieth of a cache hit's time when every count did.
    private let handles = Handles()
    /// Responses whose body went out from a cache file with `sendfile`.
    private let fileBodies: CoreMetrics.Counter
    /// Cache hits answered beneath the router (``HitReplays``).
    private let replays: CoreMetrics.Counter
    private let undecoded: CoreMetrics.Counter

    /// A metric's label and its dimensions' values (the names follow from the label).
    private struct Key: Hashable, Sendable {
        let label: String
        let values: [String]

        init(_ label: String, _ dimensions: [(String, String)]) {
            self.label = label
            self.values = dimensions.map(\.1)
        }
    }

    private final class Handles: Sendable {
        let counters = Mutex<[Key: CoreMetrics.Counter]>([:])
        let gauges = Mutex<[Key: CoreMetrics.Gauge]>([:])
        let timers = Mutex<[Key: CoreMetrics.Timer]>([:])
    }

    private func counter(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Counter {
        self.handles.counters.kept(Key(label, dimensions)) { Counter(label: label, dimensions: dimensions, factory: self.factory) }
    }

    private func gauge(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Gauge {
        self.handles.gauges.kept(Key(label, dimensions)) { Gauge(label: label, dimensions: dimensions, factory: self.factory) }
    }

    private func timer(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Timer {
        self.handles.timers.kept(Key(label, dimensions)) { Timer(label: label, dimensions: dimensions, factory: self.factory) }
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
        self.replays = Counter(label: "backdrop.responses.replayed.total", factory: factory)
        self.undecoded = Counter(label: "backdrop.responses.replayed.undecoded.total", factory: factory)
    }

    func sentFromFile() {
        self.fileBodies.increment()
    }

    /// A hit sent again beneath the router; `undecoded`, answered from its request's bytes before decoding.
    func replayed(undecoded: Bool) {
        self.replays.increment()
        if undecoded { self.undecoded.increment() }
    }

    /// A connection closed by the transport: `peer` (the client closed with nothing in flight), `idle_timeout`,
    /// `head_timeout`.
    func connectionClosed(_ reason: String) {
        self.counter("backdrop.connections.closed.total", [("reason", reason)]).increment()
    }

    func request(route: String, status: Int, duration: Duration) {
        self.requestCounts(route: route, status: status).record(duration)
    }

    /// A request's count and duration under its route and status, with their handles looked up once (for answers
    /// sent again and again: ``HitReplays``).
    struct RequestCounts: Sendable {
        fileprivate let count: CoreMetrics.Counter
        fileprivate let duration: CoreMetrics.Timer

        func record(_ duration: Duration) {
            self.count.increment()
            self.duration.recordNanoseconds(TimeAmount(duration).nanoseconds)
        }
    }

    func requestCounts(route: String, status: Int) -> RequestCounts {
        RequestCounts(
            count: self.counter("backdrop.requests.total", [("route", route), ("status", String(status))]),
            duration: self.timer("backdrop.request.duration.seconds", [("route", route)])
        )
    }

    enum CacheEvent: String {
        case hit = "hits"
        case miss = "misses"
        case eviction = "evictions"
    }

    func cache(_ event: CacheEvent, kind: String) {
        self.counter("backdrop.cache.\(event.rawValue).total", [("kind", kind)]).increment()
    }

    /// The render queue now: jobs waiting for a worker, and jobs running.
    func renderJobs(queued: Int, running: Int) {
        self.gauge("backdrop.render.jobs", [("state", "queued")]).record(queued)
        self.gauge("backdrop.render.jobs", [("state", "running")]).record(running)
    }

    func cacheBytes(kind: String, bytes: Int) {
        self.gauge("backdrop.cache.bytes", [("kind", kind)]).record(bytes)
    }

    /// `operation`: read or write.
    func cacheError(_ operation: String) {
        self.counter("backdrop.cache.errors.total", [("operation", operation)]).increment()
    }

    /// A search call to a photo source (`flickr`, `commons`), by outcome: ok, empty, invalid_key, transient, failed,
    /// malformed, quota.
    func sourceCall(_ source: String, _ outcome: String) {
        self.counter("backdrop.source.calls.total", [("source", source), ("outcome", outcome)]).increment()
    }

    /// A request's upstream deadline passed; it got a fallback photo.
    func deadlinePassed() {
        self.counter("backdrop.upstream.deadlines.total").increment()
    }

    /// A `/background` image answered (200) or confirmed (304), by format (`png`, `jpeg`, `webp`, `avif`).
    func image(_ format: String, status: Int) {
        self.imageCounter(format, status: status).increment()
    }

    /// ``image(_:status:)``'s counter, for answers sent again and again.
    func imageCounter(_ format: String, status: Int) -> CoreMetrics.Counter {
        self.counter("backdrop.images.total", [("format", format), ("status", String(status))])
    }

    /// A lossy render's fidelity check (``FittedQuality``), by format: `first`, `second`, `short` or `clear`.
    func fidelity(_ format: String, outcome: String) {
        self.counter("backdrop.render.fidelity.total", [("format", format), ("outcome", outcome)]).increment()
    }

    /// The quality gate's verdict on a photo from elsewhere, once per photo prepared: pass, dark, bright, clipped,
    /// blurred or flat.
    func photoQuality(_ verdict: String) {
        self.counter("backdrop.photos.quality.total", [("verdict", verdict)]).increment()
    }

    /// `kind`: stale or stock.
    func fallback(_ kind: String) {
        self.counter("backdrop.fallbacks.total", [("kind", kind)]).increment()
    }

    /// How a replica's lookup of a cell-window went with the others: `searched` (it held the lease), `shared` (another
    /// replica's result), `failing` or `key_rejected` (another replica's discovery), `alone` (no database to ask).
    func clusterCell(_ outcome: String) {
        self.counter("backdrop.cluster.cells.total", [("outcome", outcome)]).increment()
    }

    /// A wait for another replica's lease on a cell-window, by how it ended: `shared` (its result came) or `took_over`
    /// (its lease expired: the replica holding it died or hangs).
    func clusterLeaseWait(_ outcome: String, _ duration: Duration) {
        self.counter("backdrop.cluster.lease.waits.total", [("outcome", outcome)]).increment()
        self.timer("backdrop.cluster.lease.wait.seconds").recordNanoseconds(TimeAmount(duration).nanoseconds)
    }

    /// A query or connection attempt on the shared database failed or took too long, by operation.
    func clusterDatabaseError(_ operation: String) {
        self.counter("backdrop.cluster.database.errors.total", [("operation", operation)]).increment()
    }

    /// Calls left in a source's budget (`flickr`, `commons`) at its last call: the replica's own bucket, or the
    /// shared one as the database counted it.
    func budgetTokens(_ source: String, _ tokens: Int) {
        self.gauge("backdrop.source.budget.tokens", [("source", source)]).record(tokens)
    }

    /// 1 while the replica shares through the database, 0 while it works alone because the database cannot be reached.
    func clusterConnected(_ connected: Bool) {
        self.gauge("backdrop.cluster.connected").record(connected ? 1 : 0)
    }

    /// Prometheus text exposition.
    package func exposition() -> String { self.registry.emitToString() }
}
