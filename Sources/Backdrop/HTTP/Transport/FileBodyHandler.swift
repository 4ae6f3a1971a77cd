import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// At the socket end of the pipeline, beneath NIO's HTTP/1 encoder: a body sent from its cache file with `sendfile`
/// (``HitReplayHandler`` puts it in the place of the bytes) leaves with its head corked, in full segments, as nginx's
/// `tcp_nopush` does (on Linux: the head is still pending, since a response's head, body and end are flushed at once),
/// and is counted. Every other write passes unchanged.
final class FileBodyHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    #if os(Linux)
    private static let cork = ChannelOptions.Types.SocketOption(level: IPPROTO_TCP, name: TCP_CORK)
    #endif

    private let sent: @Sendable () -> Void

    init(sent: @escaping @Sendable () -> Void) {
        self.sent = sent
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .fileRegion = self.unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        #if os(Linux)
        let written = promise ?? context.eventLoop.makePromise()
        let channel = context.channel
        try? channel.syncOptions?.setOption(Self.cork, value: 1)
        written.futureResult.whenComplete { _ in try? channel.syncOptions?.setOption(Self.cork, value: 0) }
        context.write(data, promise: written)
        #else
        context.write(data, promise: promise)
        #endif
        self.sent()
    }
}
