import NIOCore

/// Sits beneath NIO's HTTP codec (first in the pipeline, or right after TLS were there any), so that what it writes
/// goes to the socket as it is: ``HotHitHandler`` writes already encoded heads and file regions through it.
final class SocketWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Writes `data` to the socket (on the channel's event loop).
    func write(_ data: IOData, promise: EventLoopPromise<Void>?) {
        guard let context = self.context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.write(self.wrapOutboundOut(data), promise: promise)
    }
}
