import NIOCore
import NIOHTTP1

/// Says when a connection first has something for its request loop: a request passed on whole by
/// ``RequestProgressHandler``, an error, or the connection closing; then leaves the pipeline. Until then
/// ``BackdropHTTP1Channel`` keeps the connection's task waiting in a shallow frame, so that a connection that is idle
/// or still trickling its first head holds a few hundred bytes of task instead of the request loop's async frames
/// (about 6 kB).
final class FirstRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let promise: EventLoopPromise<Void>

    init(eventLoop: any EventLoop) {
        self.promise = eventLoop.makePromise()
    }

    /// Succeeds once; never fails.
    var firstRequest: EventLoopFuture<Void> { self.promise.futureResult }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.promise.succeed()
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)  // its work is done
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.promise.succeed()
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.promise.succeed()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.promise.succeed()
    }
}
