import Hummingbird
import NIOCore

/// Hummingbird's basic request context plus the peer's address, which tells clients apart for the render queue
/// (``ClientAddress``) and which tracing middleware records.
public struct BackdropRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}
