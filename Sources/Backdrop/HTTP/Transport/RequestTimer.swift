import NIOCore

/// One connection's clock on the request it is receiving: armed when the first byte of a request arrives, re-armed
/// by each part of its body, disarmed once the request is whole. When it fires, the client has taken longer than
/// `timeout` to send a request's head (or between two parts of its body): the connection is closed. Idle connections
/// (no request begun) are left to the idle timeout. Used on the channel's event loop only.
final class RequestTimer {
    let timeout: TimeAmount
    private var scheduled: Scheduled<Void>?
    /// Whether a request has begun (bytes have arrived) and has not yet been received whole.
    private(set) var receiving = false

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    /// Bytes arrived: a request begins unless one is already being received.
    func bytesArrived(context: ChannelHandlerContext) {
        guard !self.receiving else { return }
        self.receiving = true
        self.arm(context: context)
    }

    /// A head or a body part arrived: the client has `timeout` again for what follows.
    func progressed(context: ChannelHandlerContext, expectingMore: Bool) {
        self.scheduled?.cancel()
        self.scheduled = nil
        if expectingMore { self.arm(context: context) }
    }

    /// The request is whole.
    func finished() {
        self.scheduled?.cancel()
        self.scheduled = nil
        self.receiving = false
    }

    private func arm(context: ChannelHandlerContext) {
        let channel = context.channel
        self.scheduled = context.eventLoop.scheduleTask(in: self.timeout) {
            channel.close(promise: nil)
        }
    }
}

/// At the socket end: tells the connection's ``RequestTimer`` when bytes arrive (a head still incomplete is invisible
/// further up, where only whole heads are decoded).
final class RequestBytesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let timer: RequestTimer

    init(timer: RequestTimer) {
        self.timer = timer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.timer.bytesArrived(context: context)
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.timer.finished()
        context.fireChannelInactive()
    }
}
