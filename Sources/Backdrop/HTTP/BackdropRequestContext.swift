import Hummingbird
import NIOCore

/// Hummingbird's basic request context plus the peer's address, which tells clients apart for the render queue
/// (``ClientAddress``) and which tracing middleware records.
package struct BackdropRequestContext: RequestContext, RemoteAddressRequestContext {
    package var coreContext: CoreRequestContextStorage
    package let remoteAddress: SocketAddress?

    package init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}
