import ArgumentParser
import Backdrop
import Foundation
import Logging

@main
struct BackdropCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backdrop",
        abstract: "Location-based blurred background images over HTTP.",
        version: Backdrop.version,
        subcommands: [Serve.self, Health.self],
        defaultSubcommand: Serve.self
    )
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP service.")

    @Option(help: "Path to the configuration file.") var config = "config.json"
    @Option(help: "Address to bind (overrides BACKDROP_HOST and server.host).") var host: String?
    @Option(help: "Port to bind (overrides BACKDROP_PORT and server.port).") var port: Int?
    @Option(help: "PostgreSQL URL shared by replicas (overrides BACKDROP_POSTGRES_URL and cluster.postgresURL).") var postgresURL: String?

    func run() async throws {
        let settings: Settings
        do {
            settings = try Settings.load(file: self.config, environment: ProcessInfo.processInfo.environment,
                                         overrides: .init(host: self.host, port: self.port, postgresURL: self.postgresURL))
        } catch let error as ConfigError {
            FileHandle.standardError.write(Data("backdrop: configuration error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        LoggingSystem.bootstrap(StreamLogHandler.standardOutput)
        DescriptorLimit.raiseToHardLimit()
        MallocTuning.returnLargeBlocksToTheSystem()
        do {
            try await buildApplication(settings).runService()
        } catch let error as StockPhotoError {
            FileHandle.standardError.write(Data("backdrop: cannot start: \(error)\n".utf8))
            throw ExitCode(3)
        } catch let error as ConfigError {
            FileHandle.standardError.write(Data("backdrop: configuration error: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}
