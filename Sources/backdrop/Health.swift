import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore

/// `backdrop health`: exits 0 when the service answers `/health` with 200, else 1 (for container health checks,
/// without curl in the image). With `--require-shared`, a replica working alone while its database cannot be reached
/// (`"cluster": "degraded"`) fails too: a readiness probe for operators who would rather take such a replica out of
/// rotation (it still answers every request; the default probe keeps it).
struct Health: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check that a running Backdrop answers /health.")

    @Option(help: "The health URL to ask.") var url = "http://127.0.0.1:8080/health"
    @Option(help: "Seconds to wait for the answer.") var timeout = 5
    @Flag(help: "Fail while the replica cannot reach its shared database (cluster \"degraded\").") var requireShared = false

    func run() async throws {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let status: Int
        var cluster: String?
        do {
            let response = try await client.execute(HTTPClientRequest(url: self.url), timeout: .seconds(Int64(self.timeout)))
            status = Int(response.status.code)
            let body = try? await response.body.collect(upTo: 1 << 16)
            cluster = body.flatMap { try? JSONDecoder().decode(Answer.self, from: Data(buffer: $0)) }?.cluster
        } catch {
            try? await client.shutdown()
            FileHandle.standardError.write(Data("backdrop health: \(self.url): \(error)\n".utf8))
            throw ExitCode(1)
        }
        try await client.shutdown()
        guard status == 200 else {
            FileHandle.standardError.write(Data("backdrop health: \(self.url) answered \(status)\n".utf8))
            throw ExitCode(1)
        }
        if self.requireShared && cluster == "degraded" {
            FileHandle.standardError.write(Data("backdrop health: \(self.url): working alone, its database cannot be reached\n".utf8))
            throw ExitCode(1)
        }
    }

    private struct Answer: Decodable {
        let cluster: String?
    }
}
