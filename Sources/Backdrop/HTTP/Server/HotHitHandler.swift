import Foundation
import Logging
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#endif

/// Answers repeat requests for backgrounds in ``HotRenders`` on the connection's event loop, as nginx serves a
/// static file: the head written whole, the body sent from the cache file with `sendfile`, both in one corked burst.
/// Every other request goes on to Hummingbird unchanged.
///
/// Responses leave in request order: while a request passed on is unanswered, or the socket is not writable, later
/// requests are passed on too. Requests with a body, or that end the connection, always go to Hummingbird. Hits are
/// logged and counted as the route's requests are.
///
/// It also keeps the body of Hummingbird's responses to HEAD off the wire. NIO's encoder would do that by pairing
/// responses with requests in order, but it cannot see the hits answered here, so it is not given the requests.
final class HotHitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private static let cork = ChannelOptions.Types.SocketOption(level: IPPROTO_TCP, name: TCP_CORK)

    private let hot: HotRenders
    /// Writes straight to the socket, beneath NIO's HTTP encoder: a hit's head is already encoded.
    private let socket: SocketWriter
    private let metrics: BackdropMetrics?
    private let logger: Logger
    private let serverLine: String
    /// Methods of the requests passed on whose response has not ended, oldest first.
    private var passedOn = CircularBuffer<HTTPMethod>()
    /// Whether the response being passed through answers a HEAD, so has its body dropped.
    private var droppingBody = false
    /// The hit being answered, once its request ends.
    private var hit: (answer: HotRenders.Answer, method: HTTPMethod, started: ContinuousClock.Instant)?
    private var needsFlush = false
    private var date = (second: Int64.min, text: "")

    init(hot: HotRenders, socket: SocketWriter, metrics: BackdropMetrics?, logger: Logger, serverName: String) {
        self.hot = hot
        self.socket = socket
        self.metrics = metrics
        self.logger = logger
        self.serverLine = "Server: \(serverName)\r\n\r\n"
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            if self.passedOn.isEmpty, context.channel.isWritable, head.version == .http1_1, head.isKeepAlive, !Self.hasBody(head),
               let answer = self.hot.answer(method: head.method, uri: head.uri, headers: head.headers) {
                self.hit = (answer, head.method, .now)
                return
            }
            self.passedOn.append(head.method)
            context.fireChannelRead(data)
        case .body:
            // Only requests without a body are answered here, so a body belongs to a request passed on.
            context.fireChannelRead(data)
        case .end:
            guard let hit = self.hit else {
                context.fireChannelRead(data)
                return
            }
            self.hit = nil
            self.respond(hit.answer, method: hit.method, started: hit.started, context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if self.needsFlush {
            self.needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch self.unwrapOutboundIn(data) {
        case .head:
            self.droppingBody = self.passedOn.first == .HEAD
        case .body where self.droppingBody:
            promise?.succeed(())
            return
        case .body:
            break
        case .end:
            self.droppingBody = false
            _ = self.passedOn.popFirst()
        }
        context.write(data, promise: promise)
    }

    private func respond(_ answer: HotRenders.Answer, method: HTTPMethod, started: ContinuousClock.Instant, context: ChannelHandlerContext) {
        var head = context.channel.allocator.buffer(capacity: answer.head.readableBytes + 128)
        head.writeImmutableBuffer(answer.head)
        head.writeString("Cache-Control: public, max-age=\(answer.maxAge)\r\nDate: \(self.httpDate())\r\n")
        head.writeString(self.serverLine)
        // Corked, the head and the first of the body leave in full segments, as nginx's `tcp_nopush` does.
        let channel = context.channel
        try? channel.syncOptions?.setOption(Self.cork, value: 1)
        let written = context.eventLoop.makePromise(of: Void.self)
        if let region = answer.file?.region(closedWhen: written.futureResult) {
            self.socket.write(.byteBuffer(head), promise: nil)
            self.socket.write(.fileRegion(region), promise: written)
            self.metrics?.sentFromFile()
        } else {
            self.socket.write(.byteBuffer(head), promise: written)
        }
        written.futureResult.whenComplete { _ in try? channel.syncOptions?.setOption(Self.cork, value: 0) }
        self.needsFlush = true

        let elapsed = ContinuousClock.now - started
        self.metrics?.hotHit(status: Int(answer.status.code), duration: elapsed)
        if self.logger.logLevel <= .info {
            self.logger.info("request", metadata: [
                "method": "\(method.rawValue)", "path": "/background", "status": "\(answer.status.code)",
                "ms": "\(elapsed.loggedMilliseconds)", "source": "\(answer.source)", "cell": "\(answer.cell)",
                "answered": "connection",
            ])
        }
    }

    /// The `Date` header's value, formatted once a second.
    private func httpDate() -> String {
        let now = Date()
        let second = Int64(now.timeIntervalSince1970.rounded(.down))
        if second != self.date.second { self.date = (second, HTTPDate.format(now)) }
        return self.date.text
    }

    private static func hasBody(_ head: HTTPRequestHead) -> Bool {
        head.headers.contains(name: "Transfer-Encoding") || head.headers["Content-Length"].contains { $0 != "0" }
    }
}
