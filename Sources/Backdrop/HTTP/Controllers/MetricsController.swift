import Hummingbird

/// `GET /metrics`: Prometheus text exposition.
struct MetricsController: Sendable {
    let metrics: BackdropMetrics

    func addRoutes(to router: Router<some RequestContext>) {
        router.get(Route.metrics.routerPath) { _, _ in
            let text = self.metrics.exposition()
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/plain; version=0.0.4; charset=utf-8", .contentLength: String(text.utf8.count), .cacheControl: "no-store",
                ],
                body: .init(byteBuffer: ByteBuffer(string: text))
            )
        }
    }
}
