import AsyncHTTPClient
import ServiceLifecycle

/// Owns the shared HTTP client for the application's lifetime and shuts it down after graceful shutdown.
struct HTTPClientService: Service {
    let client: HTTPClient

    func run() async throws {
        try? await gracefulShutdown()
        try await self.client.shutdown()
    }
}
