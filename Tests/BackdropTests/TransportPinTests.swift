import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import Backdrop

/// ``BackdropHTTP1Channel`` builds its pipeline as Hummingbird's `HTTP1Channel.setup` does, with seven handlers of its
/// own added (see its doc comment, which names the Hummingbird version the copy matches). This pins the copy: both
/// pipelines are built on embedded channels and compared handler by handler, so that a Hummingbird update that changes
/// its pipeline fails here instead of going unnoticed.
@Suite("The transport against Hummingbird's")
struct TransportPinTests {
    /// Backdrop's own handlers, in the order they are added.
    static let ours = [
        "StalledReaders", "RequestBytesHandler", "DrainBeforeClose", "FileBodyHandler", "HitBytesHandler", "RequestProgressHandler",
        "HitReplayHandler", "FirstRequestHandler",
    ]

    /// The handler types of `channel`'s pipeline, from its debug description (one handler a line after the header).
    static func handlerTypes(_ channel: EmbeddedChannel) -> [String] {
        channel.pipeline.debugDescription.split(separator: "\n").dropFirst(2).compactMap { line in
            let sides = line.split(separator: "↓↑", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard sides.count == 2 else { return nil }
            let incoming = sides[0]
            let outgoing = sides[1].split(separator: " ").first.map(String.init) ?? ""
            let type = incoming.isEmpty ? outgoing : incoming
            return type.split(separator: "<").first.map(String.init)  // generic parameters aside
        }
    }

    @Test("Backdrop's pipeline is Hummingbird's plus its seven handlers, in the places it says")
    func pipelinesMatch() throws {
        let configuration = Settings().server.http1Configuration
        let logger = Logger(label: "pin")
        let theirs = EmbeddedChannel()
        _ = try HTTP1Channel(responder: { _, _, _ in }, configuration: configuration)
            .setup(channel: theirs, logger: logger).wait()
        let mine = EmbeddedChannel()
        let channel = BackdropHTTP1Channel(
            base: HTTP1Channel(responder: { _, _, _ in }, configuration: configuration),
            idleTimeout: .seconds(60),
            requestTimeout: .seconds(10),
            metrics: BackdropMetrics(),
            replays: LoopReplays(limit: 4, clock: SystemClock())
        )
        _ = try channel.setup(channel: mine, logger: logger).wait()
        let hummingbird = Self.handlerTypes(theirs)
        let backdrop = Self.handlerTypes(mine)
        #expect(!hummingbird.isEmpty && hummingbird.contains("HTTP1ToHTTPServerCodec"), "\(theirs.pipeline.debugDescription)")
        #expect(backdrop.filter { !Self.ours.contains($0) } == hummingbird, "Backdrop: \(backdrop)\nHummingbird: \(hummingbird)")
        // Ours sit where the doc comment says: four at the socket end, one between NIO's encoder and decoder, three
        // between NIO's decoder and Hummingbird's codec.
        #expect(Array(backdrop.prefix(4)) == ["StalledReaders", "RequestBytesHandler", "DrainBeforeClose", "FileBodyHandler"], "\(backdrop)")
        #expect(Array(backdrop[4..<7]) == ["HTTPResponseEncoder", "HitBytesHandler", "ByteToMessageHandler"], "\(backdrop)")
        let codec = try #require(backdrop.firstIndex(of: "HTTP1ToHTTPServerCodec"))
        #expect(Array(backdrop[(codec - 3)..<codec]) == ["RequestProgressHandler", "HitReplayHandler", "FirstRequestHandler"], "\(backdrop)")
        _ = try? theirs.finish()
        _ = try? mine.finish()
    }
}
