import Foundation
import Hummingbird

/// `GET /health`: liveness for load balancers and container health checks.
public struct HealthController: Sendable {
    let stockPhotoCount: Int

    public init(stockPhotoCount: Int) {
        self.stockPhotoCount = stockPhotoCount
    }

    struct Body: Codable {
        let status: String
        let version: String
        let stockPhotos: Int
    }

    public func addRoutes(to router: Router<some RequestContext>) {
        router.get("health") { _, _ in
            try Response.json(Body(status: "ok", version: Backdrop.version, stockPhotos: self.stockPhotoCount))
        }
    }
}

public enum Backdrop {
    public static let version = "0.1.0"
}
