import NIOCore

/// At the socket end: closes a connection whose client has stopped reading. While a response is being written and the
/// socket takes no more (the channel is not writable: NIO holds more than its high-water mark unsent), a clock runs;
/// it restarts whenever the socket takes bytes again, so a slow reader that keeps reading keeps its connection however
/// long the body, and one that reads nothing for ``longestStall`` is closed: its response is abandoned and the render
/// it holds freed. Without it, a client that stopped reading held its connection and its render for ever, and a
/// graceful shutdown waited on it (``DrainBeforeClose`` bounds only the close's own wait). The close goes to the socket
/// directly, past ``DrainBeforeClose``: nothing more would be read. Nothing is tracked per write.
///
/// A large cached body makes the socket unwritable and writable again once per answer; the clock costs nothing then.
/// One check is scheduled when a stall begins with none pending; when it runs, it closes the connection if the stall
/// under way began ``longestStall`` ago or more, checks again when the stall under way would reach that, and stops when
/// there is none.
final class StalledReaders: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    /// How long a client may read nothing while a response waits for it.
    static let longestStall = TimeAmount.seconds(15)

    private let stall: TimeAmount
    private let closed: @Sendable () -> Void
    /// When the stall under way began (the socket stopped taking bytes), if one is.
    private var stalledSince: NIODeadline?
    private var check: Scheduled<Void>?

    init(stall: TimeAmount = StalledReaders.longestStall, closed: @escaping @Sendable () -> Void) {
        self.stall = stall
        self.closed = closed
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            self.stalledSince = nil  // a check pending finds no stall and stops
        } else {
            let now = NIODeadline.now()
            self.stalledSince = now
            if self.check == nil { self.schedule(at: now + self.stall, context: context) }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.stalledSince = nil
        self.check?.cancel()
        self.check = nil
        context.fireChannelInactive()
    }

    private func schedule(at deadline: NIODeadline, context: ChannelHandlerContext) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        self.check = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            self.check = nil
            guard let since = self.stalledSince else { return }
            if since + self.stall <= NIODeadline.now() {
                self.closed()
                bound.value.close(mode: .all, promise: nil)
            } else {
                self.schedule(at: since + self.stall, context: bound.value)
            }
        }
    }
}
