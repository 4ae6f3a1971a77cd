import NIOCore

/// A handler that answers requests itself beneath the router (``HitBytesHandler``, ``HitReplayHandler``): a quiesce
/// (the server stopping) passes it only once its answers being written have gone, so that a stopping server never
/// closes a connection halfway through one; from then on it answers nothing.
protocol AnswersUnderway: AnyObject {
    var underway: Underway { get set }
}

/// What an ``AnswersUnderway`` handler has under way.
struct Underway {
    /// Set once a quiesce has come.
    fileprivate(set) var quiescing = false
    fileprivate var writing = 0
    fileprivate var held: Any?
}

extension AnswersUnderway {
    /// An answer of `file`'s payload begins: its region (a descriptor of its own, closed once it is written) and the
    /// promise its last write completes. Nil, and nothing begun, when no descriptor can be spared.
    func sending(_ file: CachedFile, context: ChannelHandlerContext) -> (FileRegion, EventLoopPromise<Void>)? {
        let written = context.eventLoop.makePromise(of: Void.self)
        guard let region = file.region(closedWhen: written.futureResult) else {
            written.succeed()
            return nil
        }
        self.began(written.futureResult, context: context)
        return (region, written)
    }

    /// An answer is being written; `written` completes with its last write.
    private func began(_ written: EventLoopFuture<Void>, context: ChannelHandlerContext) {
        self.underway.writing += 1
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        written.whenComplete { _ in
            let (handler, context) = bound.value
            handler.underway.writing -= 1
            if handler.underway.writing == 0, let event = handler.underway.held {
                handler.underway.held = nil
                context.fireUserInboundEventTriggered(event)
            }
        }
    }

    /// Passes `event`, a quiesce, on now, or once the answers under way are written.
    func quiesce(_ event: Any, context: ChannelHandlerContext) {
        self.underway.quiescing = true
        if self.underway.writing == 0 { context.fireUserInboundEventTriggered(event) } else { self.underway.held = event }
    }
}
