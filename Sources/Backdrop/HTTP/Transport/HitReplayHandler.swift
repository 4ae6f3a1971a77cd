import Logging
import NIOCore
import NIOHTTP1

/// Between NIO's HTTP/1 decoder (past ``RequestProgressHandler``) and Hummingbird's codec, where requests are whole
/// heads and responses not yet bytes:
/// - sends a body the route offered from its cache file (``FileBodies``) as a file region in the place of its bytes,
///   and keeps what went out as a replay when the route gave terms for one and the request may be answered alike again
///   (``HitReplays``);
/// - answers a request that a replay stands for here, as the route answered it, with no task, no router and no
///   middleware: the head it recorded with `Date` and `Cache-Control` made anew, the body by `sendfile`, the log line
///   and metrics written by the same code as the router's (``RequestLog``). Only when no request passed on is still
///   owed its answer, so that pipelined answers keep their order, and never once the server is stopping;
/// - remembers the exact bytes of a replayed request's head (``PassedHeads``), when the connection stays open after its
///   answer and the head needs nothing else of the transport, so that ``HitBytesHandler`` answers those bytes again
///   without decoding them.
///
/// What a replay skips is the router's middleware, and only for those hits: a router given middleware of another's
/// (tests, embedding) or tracing turns replays off, so that such middleware sees every answer.
final class HitReplayHandler: ChannelDuplexHandler, RemovableChannelHandler, AnswersUnderway {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let bodies: FileBodies
    private let replays: HitReplays?
    private let heads: PassedHeads?
    private let metrics: BackdropMetrics
    private let logger: Logger

    /// For each request passed on whose answer has not ended, oldest first: what a replay of it would stand for (nil
    /// when it may not be replayed), and its head's bytes when they may stand for it.
    private var passedOn = CircularBuffer<(key: HitReplays.Key?, bytes: ByteBuffer?)>()
    /// The head of the answer being written, to the oldest request passed on.
    private var answerHead: HTTPResponseHead?
    /// Set while the end of a request answered here is still to come: it is not passed on.
    private var answeredHere = false
    var underway = Underway()

    init(bodies: FileBodies, replays: HitReplays?, heads: PassedHeads?, metrics: BackdropMetrics, logger: Logger) {
        self.bodies = bodies
        self.replays = replays
        self.heads = heads
        self.metrics = metrics
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            let key = self.key(head)
            let decoded = self.heads?.decoded()  // taken for every head decoded, to keep the pairing in step
            let bytes = key == nil ? nil : decoded.flatMap { Self.standsAlone($0, for: head) ? $0 : nil }
            // A client that asks to close gets its answer from the router, which closes the connection after it.
            if let key, head.isKeepAlive, self.passedOn.isEmpty, !self.underway.quiescing,
                self.replay(key, head: head, bytes: bytes, context: context)
            {
                self.answeredHere = true
                return
            }
            self.passedOn.append((key, bytes))
            context.fireChannelRead(data)
        case .body:
            context.fireChannelRead(data)
        case .end:
            guard !self.answeredHere else {
                self.answeredHere = false
                return
            }
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch self.unwrapOutboundIn(data) {
        case .head(let head):
            if head.status.code >= 200 { self.answerHead = head }
            context.write(data, promise: promise)
        case .body(.byteBuffer(let buffer)) where buffer.readableBytes >= OpenFileBudget.minimumPayload:
            guard let match = self.bodies.take(buffer) else {
                context.write(data, promise: promise)
                return
            }
            let written = promise ?? context.eventLoop.makePromise()
            guard let region = match.file.region(closedWhen: written.futureResult) else {
                context.write(data, promise: written)  // no descriptor to spare: the bytes go instead
                return
            }
            if let terms = match.replay, let (key, bytes) = self.passedOn.first, let key, let head = self.answerHead, head.status == .ok,
                let replays = self.replays
            {
                let now = replays.clock.now()
                replays.keep(HitReplays.Replay(head: head.headers, file: match.file, terms: terms), for: key, at: now)
                if let bytes { replays.remember(head: bytes, as: key, at: now) }
            }
            context.write(self.wrapOutboundOut(.body(.fileRegion(region))), promise: written)
        case .end:
            if self.answerHead != nil {
                self.answerHead = nil
                _ = self.passedOn.popFirst()
            }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.heads?.broke()  // the decoder refused what it was given: its heads and the bytes passed no longer pair
        context.fireErrorCaught(error)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // Stopping: nothing more is answered here, and Hummingbird's connection handler (which closes an idle
        // connection at once) hears of it only once the replays under way have been written.
        self.quiesce(event, context: context)
    }

    /// What a replay of `head` would stand for: a GET without a body or validators; nil when replays are off.
    private func key(_ head: HTTPRequestHead) -> HitReplays.Key? {
        guard self.replays != nil, head.method == .GET, !head.headers.contains(name: "if-none-match"),
            !head.headers.contains(name: "if-modified-since"), !RequestFraming.hasBody(head)
        else { return nil }
        return HitReplays.Key(target: head.uri, accept: Self.value(head.headers, "accept"), origin: Self.value(head.headers, "origin"))
    }

    private static func value(_ headers: HTTPHeaders, _ name: String) -> String? {
        let values = headers[name]
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// Whether `bytes`, the head `head` was decoded from, may stand for it on its own: HTTP/1.1 kept alive (HTTP/1.0's
    /// connection is the transport's to say, and a close the router's), no `Expect` (which the transport answers), and
    /// its request line as decoded.
    private static func standsAlone(_ bytes: ByteBuffer, for head: HTTPRequestHead) -> Bool {
        head.version == .http1_1 && head.isKeepAlive && !head.headers.contains(name: "expect")
            && HeadBytes.begins(bytes, getting: head.uri)
    }

    /// Answers `head` from its replay, if one may be sent, and remembers `bytes` as standing for it.
    private func replay(_ key: HitReplays.Key, head: HTTPRequestHead, bytes: ByteBuffer?, context: ChannelHandlerContext) -> Bool {
        guard let replays = self.replays else { return false }
        let start = ContinuousClock.now
        let now = replays.clock.now()
        guard let (replay, file) = replays.replay(key, at: now), let (region, written) = self.sending(file, context: context) else {
            return false
        }
        if let bytes { replays.remember(head: bytes, as: key, at: now) }
        let headers = replay.headers(date: replays.date(now), at: now)
        context.write(self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(self.wrapOutboundOut(.body(.fileRegion(region))), promise: written)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
        replay.terms.logged(target: head.uri, since: start, undecoded: false, logger: self.logger, metrics: self.metrics)
        return true
    }
}
