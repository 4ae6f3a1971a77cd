// The least SwiftNIO does to answer a cache hit, for `Benchmarks/cache_hit.py`: the floor the server stack sets.
//
// usage: nio-hit FILE PORT
// Serves FILE on 127.0.0.1:PORT to every request, with one handler on NIO's event loops (one a core): each request
// head in the bytes read is answered with a fixed head and the file by `sendfile`, corked as Backdrop's hits are
// (TCP_CORK around the head and the file), on the file's one descriptor. No parsing, router, timers, logging or
// counts: what is left beside nginx is NIO's own work per event (its read loop, pending writes, promises, options).
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A usage error on standard error, exit 2.
func refuse(_ problem: String) -> Never {
    let bytes = Array("nio-hit: \(problem)\nusage: nio-hit FILE PORT\n".utf8)
    _ = write(2, bytes, bytes.count)
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[2]) else { refuse("a file and a port") }
let descriptor = open(arguments[1], O_RDONLY)
var status = stat()
guard descriptor >= 0, fstat(descriptor, &status) == 0 else { refuse("cannot open \(arguments[1])") }
let size = Int(status.st_size)
let head = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: \(size)\r\nCache-Control: public, max-age=900\r\n\r\n"

/// Answers every request head it reads; the bytes of an unfinished head wait for the rest.
final class HitAnswerer: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = IOData

    private static let cork = ChannelOptions.Types.SocketOption(level: IPPROTO_TCP, name: TCP_CORK)
    private var pending: ByteBuffer?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = self.unwrapInboundIn(data)
        if var pending = self.pending {
            pending.writeBuffer(&buffer)
            buffer = pending
        }
        var answers = 0
        while let length = Self.headLength(buffer) {
            buffer.moveReaderIndex(forwardBy: length)
            answers += 1
        }
        self.pending = buffer.readableBytes > 0 ? buffer : nil
        for _ in 0..<answers { self.answer(context: context) }
        if answers > 0 { context.flush() }
    }

    /// The length of the head that begins `buffer`, up to its blank line; nil while it is unfinished.
    private static func headLength(_ buffer: ByteBuffer) -> Int? {
        buffer.withUnsafeReadableBytes { bytes -> Int? in
            var index = 3
            while index < bytes.count {
                if bytes[index] == 10, bytes[index - 1] == 13, bytes[index - 2] == 10, bytes[index - 3] == 13 { return index + 1 }
                index += 1
            }
            return nil
        }
    }

    private func answer(context: ChannelHandlerContext) {
        let channel = context.channel
        try? channel.syncOptions?.setOption(Self.cork, value: 1)
        context.write(self.wrapOutboundOut(.byteBuffer(channel.allocator.buffer(string: head))), promise: nil)
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { _ in
            _ = try? handle.takeDescriptorOwnership()  // the descriptor stays open for the next answer
            try? channel.syncOptions?.setOption(Self.cork, value: 0)
        }
        context.write(self.wrapOutboundOut(.fileRegion(FileRegion(fileHandle: handle, readerIndex: 0, endIndex: size))), promise: written)
    }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
let server = try ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 1024)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(HitAnswerer()) }
    }
    .bind(host: "127.0.0.1", port: port).wait()
try server.closeFuture.wait()
