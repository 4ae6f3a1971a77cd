import NIOCore

/// Holds a connection's close until the writes before it have reached the socket, for at most ``longestWait``. When
/// the server stops, Hummingbird's request loop ends as soon as a response is handed to the channel and the channel
/// is closed, which would drop whatever of a large body (a 5-MB PNG) NIO had not yet written: the client got a 200
/// and half an image. The close sends an empty write first and passes on once that write completes (NIO completes
/// writes in order, so every write before it is done), or after ``longestWait`` for a client that does not read.
/// Nothing is tracked per write: responses pay nothing, only a close does.
final class DrainBeforeClose: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// How long a close waits for writes a client is slow to take.
    static let longestWait = TimeAmount.seconds(5)

    private var draining = false

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, !self.draining, context.channel.isActive else {
            context.close(mode: mode, promise: promise)
            return
        }
        self.draining = true
        // Whichever comes first, the empty write's completion or the deadline, passes the close on; once.
        let context = NIOLoopBound(context, eventLoop: context.eventLoop)
        let passed = NIOLoopBoundBox(false, eventLoop: context.value.eventLoop)
        let pass = {
            guard !passed.value else { return }
            passed.value = true
            context.value.close(mode: .all, promise: promise)
        }
        let deadline = context.value.eventLoop.scheduleTask(in: Self.longestWait) { pass() }
        let written = context.value.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { _ in
            deadline.cancel()
            pass()
        }
        context.value.writeAndFlush(self.wrapOutboundOut(.byteBuffer(context.value.channel.allocator.buffer(capacity: 0))), promise: written)
    }
}
