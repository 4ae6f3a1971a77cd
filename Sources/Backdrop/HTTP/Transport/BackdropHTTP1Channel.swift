import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import ServiceLifecycle

/// Hummingbird's HTTP/1 channel (its configuration, NIO's paired encoder and decoder, its request loop), its pipeline
/// built here in one pass with seven handlers in their places:
/// - ``StalledReaders``, ``RequestBytesHandler`` and ``FileBodyHandler`` at the socket end: the first closes a
///   connection whose client reads nothing of its response for 15 s, the second bounds the time a client may take to
///   send a request's head or the next part of its body, the third corks bodies sent from their cache files;
/// - ``HitBytesHandler`` between NIO's encoder and decoder, when hits are replayed: it answers a replayed hit's exact
///   request bytes again before they are decoded;
/// - ``RequestProgressHandler``, ``HitReplayHandler`` and ``FirstRequestHandler`` right after NIO's decoder, before
///   Hummingbird's HTTP/1-to-HTTP-Types codec: the first stops the head and body timers and closes HTTP/1.0
///   connections after their response unless they asked for keep-alive (HTTP Types has no version); the second sends
///   offered bodies from their cache files and answers the hits it may replay (``HitReplays``) without the request
///   loop; the third says when the connection's first request has arrived, and only then does its task enter
///   Hummingbird's request loop, so that idle and trickling connections (and those whose every request was a
///   replayed hit) cost less memory.
///
/// Why a channel of our own: Hummingbird's `additionalChannelHandlers` sit above its HTTP/1 to HTTP Types conversion,
/// where a body can only be bytes, an unfinished head is invisible and the version is gone; these handlers must sit
/// beneath it. So the pipeline is built as `HTTP1Channel.setup` builds it (the same NIO configuration, codec,
/// additional handlers and connection state handler) with these added, and the request loop is `HTTP1Channel`'s.
///
/// The copy matches Hummingbird 2.28.1's `HTTP1Channel.setup`, and `TransportPinTests` fails when the two pipelines'
/// shared handlers differ. It can go when Hummingbird offers a place for handlers beneath its HTTP/1-to-HTTP-Types codec.
struct BackdropHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    /// One connection: what Hummingbird's request loop takes, and this channel's own hand-offs.
    struct Value: ServerChildChannelValue {
        let connection: HTTP1Channel.Value
        /// The connection's bodies offered for `sendfile`, handed to its requests as a task-local.
        let bodies: FileBodies
        /// Succeeds when the connection first has something for the request loop.
        let firstRequest: EventLoopFuture<Void>

        var channel: any Channel { self.connection.channel }
    }

    let base: HTTP1Channel
    let idleTimeout: TimeAmount
    let requestTimeout: TimeAmount
    let metrics: BackdropMetrics
    /// Hits sent again beneath the router, a table for each event loop; nil sends every request to it.
    let replays: LoopReplays?

    var responder: Responder { self.base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            let configuration = self.base.configuration
            let metrics = self.metrics
            try channel.syncOptions?.setOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536))
            let timer = ConnectionTimer(idleTimeout: self.idleTimeout, headTimeout: self.requestTimeout) { metrics.connectionClosed($0.rawValue) }
            let bodies = FileBodies()
            let first = FirstRequestHandler(eventLoop: channel.eventLoop)
            try pipeline.addHandler(StalledReaders { metrics.connectionClosed("write_stalled") })
            try pipeline.addHandler(RequestBytesHandler(timer: timer))
            try pipeline.addHandler(DrainBeforeClose())
            try pipeline.addHandler(FileBodyHandler(sent: { metrics.sentFromFile() }))
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = configuration.httpDecoder.maxHeaderFieldSize
            limits.maxHeaderListSize = configuration.httpDecoder.maxHeaderListSize
            limits.maxHeaderFieldCount = configuration.httpDecoder.maxHeaderFieldCount
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false,  // as Hummingbird: its request loop takes pipelined requests in turn
                withErrorHandling: false,
                withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(),
                withDecoderLimitConfiguration: limits
            )
            let replays = self.replays?.table(for: channel.eventLoop)
            let heads = replays.map { replays in
                let heads = PassedHeads()
                let handler = HitBytesHandler(replays: replays, heads: heads, timer: timer, metrics: metrics, logger: logger)
                return (heads, handler)
            }
            if let (_, handler) = heads {
                try pipeline.addHandler(handler, position: .after(try pipeline.handler(type: HTTPResponseEncoder.self)))
            }
            try pipeline.addHandler(RequestProgressHandler(timer: timer))
            try pipeline.addHandler(HitReplayHandler(bodies: bodies, replays: replays, heads: heads?.0, metrics: metrics, logger: logger))
            try pipeline.addHandler(first)
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandlers(configuration.additionalChannelHandlers())
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: configuration.idleTimeout.map { .init($0) }, logger: logger))
            let wrapped = try HTTP1Channel.Value(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
            return Value(connection: wrapped, bodies: bodies, firstRequest: first.firstRequest)
        }
    }

    func handle(value: Value, logger: Logger) async {
        let channel = value.channel
        // Idle, still sending its first head, or answered only by replays: wait here. If the server stops meanwhile,
        // the connection hears it as Hummingbird's request loop would have said it, so that a replay being written
        // ends first (``HitReplayHandler``), then the idle connection closes.
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                try? await value.firstRequest.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        } onGracefulShutdown: {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        await FileBodies.$current.withValue(value.bodies) {
            // A client that goes while its request is in flight takes its request's work with it: the request loop is
            // cancelled as soon as the connection closes (work another request also waits for is handed to that one).
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.base.handle(value: value.connection, logger: logger) }
                group.addTask { try? await channel.closeFuture.get() }
                await group.next()
                group.cancelAll()
            }
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 as Hummingbird serves it, plus cache files sent with `sendfile` (``BackdropHTTP1Channel``).
    static func backdrop(settings: Settings.Server, metrics: BackdropMetrics, replays: LoopReplays?) -> HTTPServerBuilder {
        .init { responder in
            BackdropHTTP1Channel(
                base: HTTP1Channel(responder: responder, configuration: settings.http1Configuration),
                idleTimeout: TimeAmount(settings.idleTimeout),
                requestTimeout: TimeAmount(settings.requestHeadTimeout),
                metrics: metrics,
                replays: replays
            )
        }
    }
}
