import NIOCore
import NIOHTTP1

/// Sends a cached background's body from its cache file with `sendfile`, the way nginx serves static files, instead
/// of copying the bytes from memory into the socket.
///
/// Hummingbird's response bodies carry bytes only, so the route marks a response whose body is also held in an open
/// cache file with ``OpenCacheFiles/header``. This handler sits below Hummingbird's HTTP/1 codec: it removes the
/// header, and writes the file's region in place of the body bytes (same length, same contents: both were checked
/// when the file was read or written). A file no longer open, or a response without a body (HEAD), goes out as
/// Hummingbird wrote it.
final class FileBodyHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let files: OpenCacheFiles
    private let sent: @Sendable () -> Void
    /// The file standing in for the current response's body, until its first body part arrives.
    private var pending: CachedFile?
    /// Whether the current response's body went out from a file, so further body parts are already sent.
    private var replaced = false

    init(files: OpenCacheFiles, sent: @escaping @Sendable () -> Void) {
        self.files = files
        self.sent = sent
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch self.unwrapOutboundIn(data) {
        case .head(var head):
            self.pending = nil
            self.replaced = false
            guard let value = head.headers.first(name: OpenCacheFiles.header) else {
                context.write(data, promise: promise)
                return
            }
            head.headers.remove(name: OpenCacheFiles.header)
            self.pending = UInt64(value).flatMap(self.files.find)
            context.write(self.wrapOutboundOut(.head(head)), promise: promise)
        case .body where self.replaced:
            promise?.succeed(())
        case .body(let bytes):
            guard let file = self.pending, file.payload.count == bytes.readableBytes else {
                context.write(data, promise: promise)
                return
            }
            let written = promise ?? context.eventLoop.makePromise()
            guard let region = file.region(closedWhen: written.futureResult) else {
                context.write(data, promise: written)  // no descriptor to spare: the bytes go instead
                return
            }
            self.pending = nil
            self.replaced = true
            context.write(self.wrapOutboundOut(.body(.fileRegion(region))), promise: written)
            self.sent()
        case .end:
            self.pending = nil
            self.replaced = false
            context.write(data, promise: promise)
        }
    }
}
