import ArgumentParser
import Backdrop
import Foundation
import Logging
import NIOCore
import ServiceLifecycle

@main
struct BackdropCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backdrop",
        abstract: "Location-based blurred background images over HTTP.",
        version: Backdrop.version,
        subcommands: [Serve.self, Health.self, Config.self],
        defaultSubcommand: Serve.self
    )
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP service.")

    @OptionGroup var options: SettingsOptions

    func run() async throws {
        let settings = try self.options.read(Settings.load)
        Telemetry.bootstrapLogging(format: settings.server.logFormat, tracing: settings.telemetry.enabled)
        DescriptorLimit.raiseToHardLimit()
        MallocTuning.configure()
        do {
            let tracing = try Telemetry.bootstrapTracing(
                settings.telemetry,
                environment: ProcessInfo.processInfo.environment,
                logger: Logger(label: "backdrop.telemetry")
            )
            let app = try await buildApplication(settings, services: tracing.map { [$0] } ?? [])
            // A graceful shutdown (SIGTERM, SIGINT) ends within 20 s whatever the clients do: past it the service is
            // cancelled (connections closed), and given 5 s more.
            var group = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: app.logger)
            group.maximumGracefulShutdownDuration = .seconds(20)
            group.maximumCancellationDuration = .seconds(5)
            try await ServiceGroup(configuration: group).run()
        } catch let error as StockPhotoError {
            FileHandle.standardError.write(Data("backdrop: cannot start: \(error)\n".utf8))
            throw ExitCode(3)
        } catch let error as ConfigError {
            FileHandle.standardError.write(Data("backdrop: configuration error: \(error)\n".utf8))
            throw ExitCode(2)
        } catch let error as IOError where [EADDRINUSE, EADDRNOTAVAIL, EACCES].contains(error.errnoCode) {
            let reason =
                switch error.errnoCode {
                case EADDRINUSE: "the port is in use"
                case EACCES: "permission denied (ports below 1024 need privileges)"
                default: "the address is not one of this machine's"
                }
            let key = error.errnoCode == EADDRNOTAVAIL ? "server.host (BACKDROP_HOST, --host)" : "server.port (BACKDROP_PORT, --port)"
            FileHandle.standardError.write(
                Data("backdrop: configuration error: \(key): cannot listen on \(settings.server.host):\(settings.server.port): \(reason)\n".utf8)
            )
            throw ExitCode(2)
        } catch let error as SocketAddressError.UnknownHost {
            FileHandle.standardError.write(
                Data(
                    "backdrop: configuration error: server.host (BACKDROP_HOST, --host): \"\(settings.server.host.prefix(100))\" is not an address or a name that resolves (\(error))\n"
                        .utf8
                )
            )
            throw ExitCode(2)
        }
    }
}
