import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 channel with Backdrop's cache-hit handlers between NIO's HTTP/1 codec and Hummingbird's
/// conversion to Swift HTTP Types, where a response body can still be a file region: ``HotHitHandler`` answers
/// repeat requests for hot renders (and keeps bodies off responses to HEAD), ``FileBodyHandler`` sends the route's cached bodies from their files.
/// Otherwise as Hummingbird's `HTTP1Channel`.
struct BackdropHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let files: OpenCacheFiles
    let hot: HotRenders
    let metrics: BackdropMetrics?
    let serverName: String

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldCount = 1000  // as Hummingbird's HTTP1Channel
            let pipeline = channel.pipeline.syncOperations
            let socket = SocketWriter()
            try pipeline.addHandler(socket)
            // As `configureHTTPServerPipeline` without pipelining assistance, error handling or header validation (as
            // Hummingbird sets it up), except that the encoder is not told each request's method: it would pair responses
            // with requests in order, and hits answered beneath it would shift the pairing. Hummingbird's responses to
            // HEAD carry no body already.
            try pipeline.addHandler(HTTPResponseEncoder(configuration: .init()))
            try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: limits)))
            let metrics = self.metrics
            try pipeline.addHandler(FileBodyHandler(files: self.files, sent: { metrics?.sentFromFile() }))
            try pipeline.addHandler(HotHitHandler(hot: self.hot, socket: socket, metrics: metrics, logger: logger, serverName: self.serverName))
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        await self.handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with Backdrop's cache-hit handlers.
    static func backdrop(files: OpenCacheFiles, hot: HotRenders, metrics: BackdropMetrics?, serverName: String) -> HTTPServerBuilder {
        .init { responder in
            BackdropHTTP1Channel(responder: responder, files: files, hot: hot, metrics: metrics, serverName: serverName)
        }
    }
}
