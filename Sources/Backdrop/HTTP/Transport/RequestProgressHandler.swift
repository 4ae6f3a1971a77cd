import NIOCore
import NIOHTTP1

/// Right after NIO's HTTP/1 decoder, where requests are whole parts and responses not yet bytes:
/// - moves the connection's ``ConnectionTimer`` along as heads, body parts and ends are decoded, and starts its idle
///   clock once the last response owed has gone;
/// - closes the connection at once when the peer closes its side (FIN) or resets it, in every state: before its first
///   request, between keep-alive requests, halfway through a head or body (which can then never arrive whole), or with
///   a request in flight, whose work ``BackdropHTTP1Channel`` then cancels (as nginx takes a client's FIN for an abort);
/// - holds a request with a body until its body has arrived whole (at most ``maxBody`` bytes, else a 413), so that a
///   malformed body is refused with one 400 instead of a normal answer followed by a stray 400 (Backdrop's routes
///   take no bodies, so nothing is lost by waiting);
/// - makes the 400 that Hummingbird writes for a request the parser refused a JSON error like every other;
/// - gives HTTP/1.0 what it expects of a connection: closed after the response unless the request asked for
///   keep-alive (with `Connection: close` or `keep-alive` said in the response).
final class RequestProgressHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The most body a request may carry; Backdrop's routes read none.
    static let maxBody = 64 << 10

    private let timer: ConnectionTimer
    /// For each request passed on whose response has not ended, oldest first: what HTTP/1.0 asked of the connection.
    private var versions = CircularBuffer<HTTP10Connection>()
    /// A request with a body, held until the body has arrived whole.
    private var held: (head: HTTPRequestHead, body: [ByteBuffer], bytes: Int)?
    /// Set once the connection is being refused (a body over the limit): nothing more is passed on.
    private var refusing = false

    private enum HTTP10Connection {
        case close, keepAlive, notHTTP10
    }

    init(timer: ConnectionTimer) {
        self.timer = timer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.refusing else { return }
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            let hasBody = head.headers.contains(name: "transfer-encoding") || head.headers["content-length"].contains { $0 != "0" }
            self.timer.progressed(context: context, expectingMore: hasBody)
            if hasBody {
                self.held = (head, [], 0)
            } else {
                self.passOn(head, context: context)
            }
        case .body(let buffer):
            self.timer.progressed(context: context, expectingMore: true)
            guard var held = self.held else {
                context.fireChannelRead(data)
                return
            }
            held.bytes += buffer.readableBytes
            guard held.bytes <= Self.maxBody else {
                self.refuse(context: context)
                return
            }
            held.body.append(buffer)
            self.held = held
        case .end(let trailers):
            self.timer.finished()
            if let held = self.held {
                self.held = nil
                self.passOn(held.head, context: context)
                for part in held.body { context.fireChannelRead(self.wrapInboundOut(.body(part))) }
                context.fireChannelRead(self.wrapInboundOut(.end(trailers)))
            } else {
                context.fireChannelRead(data)
            }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            self.held = nil
            self.timer.closedByPeer(context: context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.held = nil  // a malformed request is refused whole: nothing of it was passed on
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch self.unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
            if self.versions.isEmpty, head.status == .badRequest {
                // No request was passed on that this answers: the parser refused what came in.
                self.writeError(head: head, message: "malformed HTTP request", context: context, promise: promise)
                return
            }
            switch self.versions.first {
            case .close?:
                head.headers.replaceOrAdd(name: "connection", value: "close")
            case .keepAlive?:
                head.headers.replaceOrAdd(name: "connection", value: "keep-alive")
            default:
                break
            }
            context.write(self.wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            let closing = self.versions.popFirst() == .close
            guard closing else {
                if self.versions.isEmpty { self.timer.idle(context: context) }
                context.write(data, promise: promise)
                return
            }
            let written = promise ?? context.eventLoop.makePromise()
            context.write(data, promise: written)
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
        default:
            context.write(data, promise: promise)
        }
    }

    private func passOn(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        if head.version.major == 1, head.version.minor == 0 {
            self.versions.append(head.isKeepAlive ? .keepAlive : .close)
        } else {
            self.versions.append(.notHTTP10)
        }
        context.fireChannelRead(self.wrapInboundOut(.head(head)))
    }

    /// A body over the limit: answered 413 here and the connection closed (the rest of the body is not read).
    private func refuse(context: ChannelHandlerContext) {
        self.refusing = true
        self.held = nil
        let head = HTTPResponseHead(version: .http1_1, status: .payloadTooLarge, headers: ["connection": "close"])
        self.writeError(head: head, message: "request bodies are limited to \(Self.maxBody) bytes", context: context, promise: nil)
        let channel = context.channel
        context.writeAndFlush(self.wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// `head` with a JSON error body, as ``APIError`` writes them.
    private func writeError(head: HTTPResponseHead, message: String, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        var head = head
        var body = context.channel.allocator.buffer(capacity: 64)
        body.writeString("{\"error\":\"\(message)\"}")
        head.headers.replaceOrAdd(name: "content-type", value: "application/json; charset=utf-8")
        head.headers.replaceOrAdd(name: "content-length", value: String(body.readableBytes))
        head.headers.replaceOrAdd(name: "x-content-type-options", value: "nosniff")
        context.write(self.wrapOutboundOut(.head(head)), promise: promise)
        context.write(self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
    }
}
