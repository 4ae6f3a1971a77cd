import Foundation
import Hummingbird
import NIOPosix
import Synchronization

/// `GET /openapi.yaml`: the API description from the public folder, with its YAML media type. The document is read
/// once before the server starts (``load()``, off the cooperative pool); without one the route answers 404.
final class OpenAPIController: Sendable {
    let path: String
    private let document = Mutex<ByteBuffer?>(nil)

    init(publicFolder: String) {
        self.path = URL(fileURLWithPath: publicFolder).appendingPathComponent("openapi.yaml").path
    }

    func load() async {
        let path = self.path
        let bytes = try? await NIOThreadPool.singleton.runIfActive { FileManager.default.contents(atPath: path) }
        self.document.withLock { $0 = (bytes ?? nil).map { ByteBuffer(bytes: $0) } }
    }

    func addRoutes(to router: Router<some RequestContext>) {
        router.get(Route.openAPI.routerPath) { _, _ in
            guard let document = self.document.withLock({ $0 }) else { throw HTTPError(.notFound) }
            return Response(
                status: .ok,
                headers: [
                    .contentType: "application/yaml; charset=utf-8", .contentLength: String(document.readableBytes), .cacheControl: "no-cache",
                ],
                body: .init(byteBuffer: document)
            )
        }
    }
}
