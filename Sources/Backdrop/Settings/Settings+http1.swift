import HummingbirdCore

extension Settings.Server {
    /// Backdrop's requests are a request line with a short query and a few headers: a few kilobytes are plenty, and
    /// smaller limits bound what each unfinished head may hold in memory.
    static let maxHeaderFieldSize = 8 << 10
    static let maxHeaderListSize = 16 << 10
    static let maxHeaderFieldCount = 100

    /// Hummingbird's HTTP/1 channel configuration: the idle timeout and the header limits.
    var http1Configuration: HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(
            idleTimeout: .seconds(Int64(self.idleTimeoutSeconds)),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: Self.maxHeaderFieldSize, maxHeaderListSize: Self.maxHeaderListSize,
                                            maxHeaderFieldCount: Self.maxHeaderFieldCount)
        )
    }
}
