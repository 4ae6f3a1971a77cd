import NIOCore

/// At the socket end: closes a connection whose client has stopped reading. While a response is being written and the
/// socket takes no more (the channel is not writable: NIO holds more than its high-water mark unsent), a clock runs;
/// it restarts whenever the socket takes bytes again, so a slow reader that keeps reading keeps its connection however
/// long the body, and one that reads nothing for ``longestStall`` is closed: its response is abandoned and the render
/// it holds freed. Without it, a client that stopped reading held its connection and its render for ever, and a
/// graceful shutdown waited on it (``DrainBeforeClose`` bounds only the close's own wait). The close goes to the socket
/// directly, past ``DrainBeforeClose``: nothing more would be read. Nothing is tracked per write.
final class StalledReaders: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    /// How long a client may read nothing while a response waits for it.
    static let longestStall = TimeAmount.seconds(15)

    private let stall: TimeAmount
    private let closed: @Sendable () -> Void
    private var scheduled: Scheduled<Void>?

    init(stall: TimeAmount = StalledReaders.longestStall, closed: @escaping @Sendable () -> Void) {
        self.stall = stall
        self.closed = closed
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        self.scheduled?.cancel()
        self.scheduled = nil
        if !context.channel.isWritable {
            let context = NIOLoopBound(context, eventLoop: context.eventLoop)
            let closed = self.closed
            self.scheduled = context.value.eventLoop.assumeIsolated().scheduleTask(in: self.stall) {
                closed()
                context.value.close(mode: .all, promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.scheduled?.cancel()
        self.scheduled = nil
        context.fireChannelInactive()
    }
}
