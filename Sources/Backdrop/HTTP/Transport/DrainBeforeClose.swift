import NIOCore

/// Holds a connection's close until the writes before it have reached the socket, for at most ``longestWait``. When
/// the server stops, Hummingbird's request loop ends as soon as a response is handed to the channel and the channel
/// is closed, which would drop whatever of a large body (a 5-MB PNG) NIO had not yet written: the client got a 200
/// and half an image. A close with nothing pending, or a client that never reads, is not held longer than that.
final class DrainBeforeClose: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = Any
    typealias OutboundOut = Any

    /// How long a close waits for writes a client is slow to take.
    static let longestWait = TimeAmount.seconds(5)

    private var pending = 0
    private var heldClose: EventLoopPromise<Void>?
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let written = promise ?? context.eventLoop.makePromise()
        self.pending += 1
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        written.futureResult.whenComplete { _ in handler.value.wrote() }
        context.write(data, promise: written)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, self.pending > 0, self.heldClose == nil else {
            context.close(mode: mode, promise: promise)
            return
        }
        let held = context.eventLoop.makePromise(of: Void.self)
        if let promise { held.futureResult.cascade(to: promise) }
        self.heldClose = held
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: Self.longestWait) { handler.value.release() }
    }

    private func wrote() {
        self.pending -= 1
        if self.pending == 0 { self.release() }
    }

    /// Passes the held close on, once.
    private func release() {
        guard let held = self.heldClose, let context = self.context else { return }
        self.heldClose = nil
        context.close(mode: .all, promise: held)
    }
}
