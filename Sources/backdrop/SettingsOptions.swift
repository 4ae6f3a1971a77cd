import ArgumentParser
import Backdrop
import Foundation

/// The options that choose the settings, shared by `serve` and `config`: the file, and the flags that win over it and
/// over the environment.
struct SettingsOptions: ParsableArguments {
    @Option(help: "Path to the configuration file.") var config = "config.json"
    @Option(help: "Address to bind (overrides BACKDROP_HOST and server.host).") var host: String?
    @Option(help: "Port to bind (overrides BACKDROP_PORT and server.port).") var port: Int?
    @Option(help: "PostgreSQL URL shared by replicas (overrides BACKDROP_POSTGRES_URL and cluster.postgresURL).") var postgresURL: String?

    var overrides: Settings.Overrides { .init(host: self.host, port: self.port, postgresURL: self.postgresURL) }

    /// `read` over the file, this process's environment and the flags; a configuration error is printed, naming the
    /// key, the variable or the flag, and exits 2.
    func read<T>(_ read: (String, [String: String], Settings.Overrides) throws -> T) throws -> T {
        do {
            return try read(self.config, ProcessInfo.processInfo.environment, self.overrides)
        } catch let error as ConfigError {
            FileHandle.standardError.write(Data("backdrop: configuration error: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}

/// `backdrop config`: checks the configuration as `serve` would read it; with `--print`, prints every key's effective
/// value and where it came from (file, environment, flag or default), secrets masked.
struct Config: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check the configuration, or print it with each value's source.")

    @OptionGroup var options: SettingsOptions
    @Flag(help: "Print every key's effective value and its source (file, environment, flag, default); secrets masked.") var print = false

    func run() throws {
        let records = try self.options.read(Settings.explain)
        guard self.print else {
            Swift.print("configuration OK: \(records.count) keys read from \(self.options.config), the environment and the flags")
            return
        }
        let width = records.map(\.key.count).max() ?? 0
        for record in records {
            Swift.print(
                "\(record.key.padding(toLength: width, withPad: " ", startingAt: 0))  \(record.value.isEmpty ? "\"\"" : record.value)  (\(record.source))"
            )
        }
    }
}
