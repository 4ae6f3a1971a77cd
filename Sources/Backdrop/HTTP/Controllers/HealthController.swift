import Foundation
import Hummingbird

/// `GET /health`: liveness for load balancers and container health checks.
package struct HealthController: Sendable {
    /// The stock photos, counted at each request (they are loaded before the server starts).
    let stock: StockPhotoSource
    /// How the replica stands with the others: `local`, `postgres` or `degraded`.
    let cluster: Replicas

    init(stock: StockPhotoSource, cluster: Replicas) {
        self.stock = stock
        self.cluster = cluster
    }

    struct Body: Codable {
        let status: String
        let version: String
        let stockPhotos: Int
        let cluster: ClusterStatus
    }

    package func addRoutes(to router: Router<some RequestContext>) {
        router.get(Route.health.routerPath) { _, _ in
            try Response.json(
                Body(
                    status: "ok",
                    version: Backdrop.version,
                    stockPhotos: self.stock.library.entries.count,
                    cluster: self.cluster.status
                )
            )
        }
    }
}
