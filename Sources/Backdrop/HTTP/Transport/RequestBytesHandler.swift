import NIOCore

/// At the socket end: tells the connection's ``ConnectionTimer`` when bytes arrive (a head still incomplete is invisible
/// further up, where only whole heads are decoded), starts its idle clock when the connection opens, and stops it when
/// the connection closes.
final class RequestBytesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let timer: ConnectionTimer

    init(timer: ConnectionTimer) {
        self.timer = timer
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.timer.idle(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.timer.idle(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.timer.bytesArrived(context: context)
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.timer.channelClosed()
        context.fireChannelInactive()
    }
}
