import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1
import ServiceLifecycle

/// Hummingbird's HTTP/1 channel as it is (its configuration, NIO's paired encoder and decoder, its request loop), with
/// four handlers added around NIO's codec:
/// - ``FileBodyHandler`` at the socket end sends offered bodies from their cache files;
/// - ``RequestBytesHandler`` (socket end) and ``RequestProgressHandler`` (right after the decoder) bound the time a
///   client may take to send a request's head or the next part of its body, and close HTTP/1.0 connections after
///   their response unless they asked for keep-alive;
/// - ``FirstRequestHandler`` after them says when the connection's first request has arrived: only then does its task
///   enter Hummingbird's request loop, so that idle and trickling connections cost less memory.
///
/// Why a channel of our own: Hummingbird's `additionalChannelHandlers` sit above its HTTP/1 to HTTP Types conversion,
/// where a body can only be bytes and an unfinished head is invisible; these handlers must sit beneath it. Everything
/// else is delegated to `HTTP1Channel`.
struct BackdropHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let idleTimeout: TimeAmount
    let requestTimeout: TimeAmount
    let metrics: BackdropMetrics

    var responder: Responder { self.base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let (metrics, idleTimeout, requestTimeout) = (self.metrics, self.idleTimeout, self.requestTimeout)
        return self.base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            try channel.syncOptions?.setOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536))
            let timer = ConnectionTimer(idleTimeout: idleTimeout, headTimeout: requestTimeout) { metrics.connectionClosed($0.rawValue) }
            try pipeline.addHandler(FileBodyHandler(bodies: FileBodies(), sent: { metrics.sentFromFile() }), position: .first)
            try pipeline.addHandler(RequestBytesHandler(timer: timer), position: .first)
            let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
            try pipeline.addHandler(RequestProgressHandler(timer: timer), position: .before(codec))
            try pipeline.addHandler(FirstRequestHandler(eventLoop: channel.eventLoop), position: .before(codec))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        // The connection's hand-off, found once per connection and given to its requests as a task-local.
        let channel = value.channel
        // The first request's signal is gone when that request arrived before this lookup (the handler leaves then).
        let found = try? await channel.eventLoop.submit {
            let pipeline = channel.pipeline.syncOperations
            return (try? pipeline.handler(type: FileBodyHandler.self).bodies, try? pipeline.handler(type: FirstRequestHandler.self).firstRequest)
        }.get()
        if let firstRequest = found?.1 {
            // Idle or still sending its first head: wait here, closing the connection if the server stops meanwhile.
            await withGracefulShutdownHandler {
                await withTaskCancellationHandler {
                    try? await firstRequest.get()
                } onCancel: {
                    channel.close(promise: nil)
                }
            } onGracefulShutdown: {
                channel.close(promise: nil)
            }
        }
        await FileBodies.$current.withValue(found?.0 ?? nil) {
            // A client that goes while its request is in flight takes its request's work with it: the request loop is
            // cancelled as soon as the connection closes (work another request also waits for is handed to that one).
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.base.handle(value: value, logger: logger) }
                group.addTask { try? await channel.closeFuture.get() }
                await group.next()
                group.cancelAll()
            }
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 as Hummingbird serves it, plus cache files sent with `sendfile` (``BackdropHTTP1Channel``).
    static func backdrop(settings: Settings.Server, metrics: BackdropMetrics) -> HTTPServerBuilder {
        .init { responder in
            BackdropHTTP1Channel(
                base: HTTP1Channel(responder: responder, configuration: settings.http1Configuration),
                idleTimeout: .seconds(Int64(settings.idleTimeoutSeconds)),
                requestTimeout: .seconds(Int64(settings.requestHeadTimeoutSeconds)),
                metrics: metrics
            )
        }
    }
}
