import Logging
import NIOCore
import NIOHTTP1

/// Between NIO's HTTP/1 encoder and its decoder, where requests are still bytes and responses not yet bytes: answers a
/// request whose head is byte for byte one a replay was sent for (``HitReplays/remember(head:as:)``), before any
/// decoding, with the replay's head as NIO's encoder writes it (`Date` and `Cache-Control` made anew) and its body by
/// `sendfile`, both written beneath the encoder, which never sees them (nor its decoder the request). The same bytes
/// decode to the same request, so the answer is ``HitReplayHandler``'s for it, logged and counted alike.
///
/// It answers only at a request boundary the decoder agrees with, and in order: while every byte passed to the decoder
/// was a whole plain head (``PassedHeads``, ``HeadBytes``) and each has had its answer's end written; otherwise it
/// passes everything on and the connection is served as before. Nor once the server is stopping: a quiesce waits here
/// for the answers being written.
///
/// While no request is with the handlers above, they do not hear of the socket's writability: a large body sent from
/// here would otherwise make every handler of the pipeline, up to Hummingbird's request loop, take two events per
/// answer. They hear the socket's state before the next request reaches them. Nor do they hear that a read has ended
/// when nothing of it was passed on.
final class HitBytesHandler: ChannelDuplexHandler, RemovableChannelHandler, AnswersUnderway {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let replays: HitReplays
    private let heads: PassedHeads
    private let timer: ConnectionTimer
    private let metrics: BackdropMetrics
    private let logger: Logger

    /// The encoder's context: what is written from it goes beneath the encoder.
    private var beneathEncoder: ChannelHandlerContext?
    /// Requests passed to the decoder whose answers have not yet ended.
    private var owed = 0
    var underway = Underway()
    /// The writability the handlers above last heard of.
    private var writabilityHeard = true
    /// Whether bytes were passed on since the handlers above last heard that a read ended.
    private var passedSinceReadComplete = false

    init(replays: HitReplays, heads: PassedHeads, timer: ConnectionTimer, metrics: BackdropMetrics, logger: Logger) {
        self.replays = replays
        self.heads = heads
        self.timer = timer
        self.metrics = metrics
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.beneathEncoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        self.writabilityHeard = context.channel.isWritable
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.beneathEncoder = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = self.unwrapInboundIn(data)
        if !self.heads.stopped, !self.underway.quiescing, self.owed == 0 {
            var answered = false
            while let length = HeadBytes.length(buffer), let head = buffer.getSlice(at: buffer.readerIndex, length: length),
                self.answer(head, context: context)
            {
                buffer.moveReaderIndex(forwardBy: length)
                answered = true
            }
            if answered {
                context.flush()
                guard buffer.readableBytes > 0 else {
                    self.timer.finished()
                    self.timer.idle(context: context)
                    return
                }
            }
        }
        self.passOn(buffer, context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard self.passedSinceReadComplete || self.heads.stopped else { return }
        self.passedSinceReadComplete = false
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        guard self.owed > 0 || self.heads.stopped else { return }  // heard before the next request goes up
        self.writabilityHeard = context.channel.isWritable
        context.fireChannelWritabilityChanged()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = self.unwrapOutboundIn(data), self.owed > 0 { self.owed -= 1 }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        self.quiesce(event, context: context)
    }

    /// Passes `buffer` to the decoder, noting the whole plain heads it holds; anything else stops the pairing.
    private func passOn(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
        if !self.heads.stopped {
            var rest = buffer
            while let length = HeadBytes.length(rest), let head = rest.getSlice(at: rest.readerIndex, length: length), HeadBytes.isPlain(head) {
                self.heads.passed(head)
                self.owed += 1
                rest.moveReaderIndex(forwardBy: length)
            }
            if rest.readableBytes > 0 { self.heads.stop() }
        }
        if self.writabilityHeard != context.channel.isWritable {
            self.writabilityHeard = context.channel.isWritable
            context.fireChannelWritabilityChanged()
        }
        self.passedSinceReadComplete = true
        context.fireChannelRead(self.wrapInboundOut(buffer))
    }

    /// Answers `head` from its replay, if it stands for one that may be sent.
    private func answer(_ head: ByteBuffer, context: ChannelHandlerContext) -> Bool {
        let start = ContinuousClock.now
        let now = self.replays.clock.now()
        guard let beneathEncoder, let (replay, file, key) = self.replays.replay(head: head, at: now),
            let (region, written) = self.sending(file, context: context)
        else { return false }
        let bytes = replay.wireHead(at: now, date: self.replays.date)
        beneathEncoder.write(NIOAny(IOData.byteBuffer(bytes)), promise: nil)
        beneathEncoder.write(NIOAny(IOData.fileRegion(region)), promise: written)
        replay.terms.logged(target: key.target, since: start, undecoded: true, logger: self.logger, metrics: self.metrics)
        return true
    }
}
