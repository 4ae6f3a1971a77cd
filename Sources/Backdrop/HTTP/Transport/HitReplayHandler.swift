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
///   owed its answer, so that pipelined answers keep their order, and never once the server is stopping.
///
/// What a replay skips is the router's middleware, and only for those hits: a router given middleware of another's
/// (tests, embedding) or tracing turns replays off, so that such middleware sees every answer.
final class HitReplayHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let bodies: FileBodies
    private let replays: HitReplays?
    private let metrics: BackdropMetrics
    private let logger: Logger

    /// For each request passed on whose answer has not ended, oldest first: what a replay of it would stand for (nil
    /// when it may not be replayed).
    private var passedOn = CircularBuffer<HitReplays.Key?>()
    /// The head of the answer being written, to the oldest request passed on.
    private var answerHead: HTTPResponseHead?
    /// Set while the end of a request answered here is still to come: it is not passed on.
    private var answeredHere = false
    /// Replays still being written, and whether a quiesce waits for them.
    private var writing = 0
    private var quiescing = false
    private var heldQuiesce: Any?

    init(bodies: FileBodies, replays: HitReplays?, metrics: BackdropMetrics, logger: Logger) {
        self.bodies = bodies
        self.replays = replays
        self.metrics = metrics
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            let key = self.key(head)
            if let key, self.passedOn.isEmpty, !self.quiescing, self.replay(key, head: head, context: context) {
                self.answeredHere = true
                return
            }
            self.passedOn.append(key)
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
            if let terms = match.replay, let key = self.passedOn.first ?? nil, let head = self.answerHead, head.status == .ok,
                let replays = self.replays
            {
                replays.keep(HitReplays.Replay(head: head.headers, file: match.file, terms: terms), for: key, at: replays.clock.now())
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

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // Stopping: nothing more is answered here, and Hummingbird's connection handler (which closes an idle
        // connection at once) hears of it only once the replays under way have been written.
        self.quiescing = true
        if self.writing == 0 {
            context.fireUserInboundEventTriggered(event)
        } else {
            self.heldQuiesce = event
        }
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

    /// Answers `head` from its replay, if one may be sent.
    private func replay(_ key: HitReplays.Key, head: HTTPRequestHead, context: ChannelHandlerContext) -> Bool {
        guard let replays = self.replays else { return false }
        let start = ContinuousClock.now
        let now = replays.clock.now()
        guard let (replay, file) = replays.replay(key, at: now) else { return false }
        let written = context.eventLoop.makePromise(of: Void.self)
        guard let region = file.region(closedWhen: written.futureResult) else {
            written.succeed()
            return false
        }
        let path = head.uri.prefix { $0 != "?" }
        RequestLog.started(method: "GET", path: path, logger: self.logger)
        let headers = replay.headers(date: replays.date(now), at: now)
        self.writing += 1
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        written.futureResult.whenComplete { _ in
            let (handler, context) = bound.value
            handler.replayWritten(context: context)
        }
        context.write(self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(self.wrapOutboundOut(.body(.fileRegion(region))), promise: written)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
        let terms = replay.terms
        self.metrics.image(terms.format, status: 200)
        self.metrics.replayed()
        RequestLog.finished(
            method: "GET",
            path: path,
            status: 200,
            elapsed: ContinuousClock.now - start,
            source: terms.source,
            cell: terms.cell,
            route: terms.route,
            logger: self.logger,
            metrics: self.metrics
        )
        return true
    }

    private func replayWritten(context: ChannelHandlerContext) {
        self.writing -= 1
        if self.writing == 0, let event = self.heldQuiesce {
            self.heldQuiesce = nil
            context.fireUserInboundEventTriggered(event)
        }
    }
}
