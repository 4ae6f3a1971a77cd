import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Sends response bodies that the route offered in ``FileBodies`` from their cache files with `sendfile`, the way
/// nginx serves static files, instead of copying the bytes from memory into the socket. It sits at the socket end of
/// the pipeline, beneath NIO's HTTP/1 encoder, where a body can be a file region. Every other write passes unchanged.
///
/// On Linux the head (still pending: Hummingbird writes head, body and end, then flushes once) and the file leave
/// corked, in full segments, as nginx's `tcp_nopush` does.
final class FileBodyHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    #if os(Linux)
    private static let cork = ChannelOptions.Types.SocketOption(level: IPPROTO_TCP, name: TCP_CORK)
    #endif

    let bodies: FileBodies
    private let sent: @Sendable () -> Void

    init(bodies: FileBodies, sent: @escaping @Sendable () -> Void) {
        self.bodies = bodies
        self.sent = sent
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .byteBuffer(let buffer) = self.unwrapOutboundIn(data), buffer.readableBytes >= OpenFileBudget.minimumPayload,
            let file = self.bodies.take(buffer)
        else {
            context.write(data, promise: promise)
            return
        }
        let written = promise ?? context.eventLoop.makePromise()
        guard let region = file.region(closedWhen: written.futureResult) else {
            context.write(data, promise: written)  // no descriptor to spare: the bytes go instead
            return
        }
        #if os(Linux)
        let channel = context.channel
        try? channel.syncOptions?.setOption(Self.cork, value: 1)
        written.futureResult.whenComplete { _ in try? channel.syncOptions?.setOption(Self.cork, value: 0) }
        #endif
        context.write(self.wrapOutboundOut(.fileRegion(region)), promise: written)
        self.sent()
    }
}
