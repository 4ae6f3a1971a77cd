import NIOCore
import NIOHTTP1

/// Right after NIO's HTTP/1 decoder: moves the connection's ``RequestTimer`` along as heads, body parts and ends are
/// decoded, and gives HTTP/1.0 what it expects of a connection: closed after the response unless the request asked
/// for keep-alive (with `Connection: close` or `keep-alive` said in the response).
final class RequestProgressHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let timer: RequestTimer
    /// For each request whose response has not ended, oldest first: whether HTTP/1.0 asks to close after it, to
    /// keep alive, or neither (HTTP/1.1: Hummingbird decides).
    private var versions = CircularBuffer<HTTP10Connection>()

    private enum HTTP10Connection {
        case close, keepAlive, notHTTP10
    }

    init(timer: RequestTimer) {
        self.timer = timer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            let hasBody = head.headers.contains(name: "transfer-encoding") || head.headers["content-length"].contains { $0 != "0" }
            self.timer.progressed(context: context, expectingMore: hasBody)
            if head.version.major == 1, head.version.minor == 0 {
                self.versions.append(head.isKeepAlive ? .keepAlive : .close)
            } else {
                self.versions.append(.notHTTP10)
            }
        case .body:
            self.timer.progressed(context: context, expectingMore: true)
        case .end:
            self.timer.finished()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch self.unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
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
}
