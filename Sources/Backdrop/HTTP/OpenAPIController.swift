import Foundation
import Hummingbird

/// `GET /openapi.yaml`: the API description from the public folder, with its YAML media type (read at start).
struct OpenAPIController: Sendable {
    let document: ByteBuffer?

    init(publicFolder: String) {
        self.document = FileManager.default.contents(atPath: URL(fileURLWithPath: publicFolder).appendingPathComponent("openapi.yaml").path)
            .map { ByteBuffer(bytes: $0) }
    }

    func addRoutes(to router: Router<some RequestContext>) {
        guard let document else { return }
        router.get(Route.openAPI.routerPath) { _, _ in
            Response(status: .ok,
                     headers: [.contentType: "application/yaml; charset=utf-8", .contentLength: String(document.readableBytes), .cacheControl: "no-cache"],
                     body: .init(byteBuffer: document))
        }
    }
}
