import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 channel as it is (its configuration, NIO's paired encoder and decoder, its request loop), with
/// one handler added at the socket end: ``FileBodyHandler``, which sends offered bodies from their cache files.
///
/// Why a channel of our own: Hummingbird's `additionalChannelHandlers` sit above its HTTP/1 to HTTP Types conversion,
/// where a body can only be bytes; a file region can only be written beneath NIO's encoder. Everything else is
/// delegated to `HTTP1Channel`.
struct BackdropHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let metrics: BackdropMetrics?

    var responder: Responder { self.base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let metrics = self.metrics
        return self.base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let handler = FileBodyHandler(bodies: FileBodies(), sent: { metrics?.sentFromFile() })
            try channel.pipeline.syncOperations.addHandler(handler, position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        // The connection's hand-off, found once per connection and given to its requests as a task-local.
        let channel = value.channel
        let bodies = try? await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: FileBodyHandler.self).bodies
        }.get()
        await FileBodies.$current.withValue(bodies) {
            await self.base.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 as Hummingbird serves it, plus cache files sent with `sendfile` (``BackdropHTTP1Channel``).
    static func backdrop(configuration: HTTP1Channel.Configuration, metrics: BackdropMetrics?) -> HTTPServerBuilder {
        .init { responder in
            BackdropHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: configuration), metrics: metrics)
        }
    }
}
