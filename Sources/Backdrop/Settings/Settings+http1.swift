import Hummingbird
import HummingbirdCore
import Logging

extension Settings.Server {
    /// Backdrop's requests are a request line with a short query and a few headers: a few kilobytes are plenty, and
    /// smaller limits bound what each unfinished head may hold in memory.
    static let maxHeaderFieldSize = 8 << 10
    static let maxHeaderListSize = 16 << 10
    static let maxHeaderFieldCount = 100

    /// Hummingbird's HTTP/1 channel configuration: the header limits. The idle timeout is Backdrop's own
    /// (``ConnectionTimer``), so that the connections it closes are counted.
    var http1Configuration: HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(
            idleTimeout: nil,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: Self.maxHeaderFieldSize,
                maxHeaderListSize: Self.maxHeaderListSize,
                maxHeaderFieldCount: Self.maxHeaderFieldCount
            )
        )
    }

    /// The application's address, name, backlog and connection limit (`server.maxConnections` or what the descriptors
    /// allow).
    func application(maxConnections: Int, logger: Logger) -> ApplicationConfiguration {
        ApplicationConfiguration(
            address: .hostname(self.host, port: self.port),
            serverName: "Backdrop",
            backlog: self.backlog,
            availableConnectionsDelegate: MaximumAvailableConnections(maxConnections, logger: logger)
        )
    }
}
