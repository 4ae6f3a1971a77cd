import HTTPTypes
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
///   keep-alive (with `Connection: close` or `keep-alive` said in the response);
/// - answers from the head alone what needs no body (``RequestFraming``): a missing, repeated or malformed `Host`,
///   `Transfer-Encoding` on HTTP/1.0, a body declared over the limit (413) or an unknown expectation (417), each as a
///   JSON error after the answers owed before it, then the connection closes; a request that sends
///   `Expect: 100-continue` is answered at once without its body (no route takes one) and the connection closes after
///   the answer, so the client never waits for a `100 Continue` that would only lead to a body nobody reads.
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
    /// Set once the connection is being refused (a body over the limit, bad framing), or its last request was answered
    /// without its body: nothing more is passed on.
    private var refusing = false
    /// A refusal to write once the answers owed before it have gone (pipelined requests).
    private var pendingRefusal: RequestFraming.Refusal?

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
            if let refusal = RequestFraming.refusal(for: head, maxBody: Self.maxBody) {
                self.timer.finished()
                self.refuse(refusal, context: context)
                return
            }
            if RequestFraming.expectsContinue(head) {
                // Answered without its body, which is then never read: the connection closes after the answer.
                self.timer.finished()
                self.refusing = true
                self.passOn(head, close: true, context: context)
                context.fireChannelRead(self.wrapInboundOut(.end(nil)))
                return
            }
            let hasBody = RequestFraming.hasBody(head)
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
                self.refuse(
                    RequestFraming.Refusal(status: .payloadTooLarge, message: "request bodies are limited to \(Self.maxBody) bytes"),
                    context: context
                )
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
        guard !self.refusing else { return }  // what follows a refusal is not read: its errors answer nothing
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
            if self.versions.isEmpty, let refusal = self.pendingRefusal {
                context.write(data, promise: promise)
                self.pendingRefusal = nil
                self.writeRefusal(refusal, context: context)
                return
            }
            guard closing else {
                if self.versions.isEmpty { self.timer.idle(context: context) }
                context.write(data, promise: promise)
                return
            }
            let written = promise ?? context.eventLoop.makePromise()
            context.write(data, promise: written)
            let (channel, linger) = (context.channel, self.refusing)
            written.futureResult.whenComplete { _ in Self.close(channel, lingering: linger) }
        default:
            context.write(data, promise: promise)
        }
    }

    private func passOn(_ head: HTTPRequestHead, close: Bool = false, context: ChannelHandlerContext) {
        if close {
            self.versions.append(.close)
        } else if head.version.major == 1, head.version.minor == 0 {
            self.versions.append(head.isKeepAlive ? .keepAlive : .close)
        } else {
            self.versions.append(.notHTTP10)
        }
        context.fireChannelRead(self.wrapInboundOut(.head(head)))
    }

    /// Refuses the connection's current request with `refusal` (after the answers owed before it) and closes the
    /// connection; nothing more of it is read.
    private func refuse(_ refusal: RequestFraming.Refusal, context: ChannelHandlerContext) {
        self.refusing = true
        self.held = nil
        if self.versions.isEmpty {
            self.writeRefusal(refusal, context: context)
        } else {
            self.pendingRefusal = refusal
        }
    }

    private func writeRefusal(_ refusal: RequestFraming.Refusal, context: ChannelHandlerContext) {
        let head = HTTPResponseHead(version: .http1_1, status: refusal.status, headers: ["connection": "close"])
        self.writeError(head: head, message: refusal.message, context: context, promise: nil)
        let channel = context.channel
        context.writeAndFlush(self.wrapOutboundOut(.end(nil))).whenComplete { _ in Self.close(channel, lingering: true) }
    }

    /// How long a connection refused before its body was read keeps reading (and dropping) what the client still sends.
    static let linger = TimeAmount.seconds(2)

    /// Closes `channel`; `lingering`, while the client may still be sending a body nobody reads: the answer is followed
    /// by a half-close and the rest of the input is read and dropped until the client closes (or ``linger`` has passed),
    /// as nginx's lingering close does, so that the client's unread bytes do not make the kernel reset the connection
    /// and discard the answer before the client has read it.
    private static func close(_ channel: any Channel, lingering: Bool) {
        guard lingering else {
            channel.close(promise: nil)
            return
        }
        channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
        channel.eventLoop.scheduleTask(in: self.linger) { channel.close(promise: nil) }
    }

    /// `head` with ``APIError``'s JSON body.
    private func writeError(head: HTTPResponseHead, message: String, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        var head = head
        var body = context.channel.allocator.buffer(capacity: 64)
        body.writeBytes(APIError(status: .init(code: Int(head.status.code)), message: message).body)
        head.headers.replaceOrAdd(name: "content-type", value: "application/json; charset=utf-8")
        head.headers.replaceOrAdd(name: "content-length", value: String(body.readableBytes))
        head.headers.replaceOrAdd(name: "x-content-type-options", value: BackdropHeaders.noSniff)
        context.write(self.wrapOutboundOut(.head(head)), promise: promise)
        context.write(self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
    }
}
