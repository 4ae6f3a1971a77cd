import NIOCore
import Synchronization

/// One connection's hand-off from the route to the transport: response bodies whose bytes are also held in an open,
/// checked cache file, so that the connection's ``HitReplayHandler`` sends the file with `sendfile` in place of the bytes,
/// and the route's terms for sending the same answer again (``HitReplays``), when it may be.
///
/// The route finds its connection's instance in the task-local ``current``, set by ``BackdropHTTP1Channel`` for the
/// requests of that connection. Under any other transport there is none, and the bytes go out as they are. A body is
/// matched by identity (the same storage, the same readable bytes), never by length, so that what is sent is always
/// what the route answered.
final class FileBodies: Sendable {
    /// The current connection's hand-off, when its transport can send files.
    @TaskLocal package static var current: FileBodies?

    /// Offers not yet matched (a response dropped before its body was written) are forgotten past this many.
    private static let maxPending = 8

    private struct Offer: @unchecked Sendable {  // ByteBuffer is Sendable; the pointer is only compared, never read.
        let body: ByteBuffer
        let address: UnsafeRawPointer?
        let file: CachedFile
        let replay: HitReplays.Terms?
    }

    /// A matched offer: the file, and the terms of a replay if the route allows one.
    struct Match {
        let file: CachedFile
        let replay: HitReplays.Terms?
    }

    private let pending = Mutex<[Offer]>([])

    package init() {}

    /// Says that `body`, about to be written as a response body, is also the payload of `file`; with `replay`, that the
    /// answer may be sent again on those terms.
    func offer(_ body: ByteBuffer, file: CachedFile, replay: HitReplays.Terms?) {
        let offer = Offer(body: body, address: Self.address(of: body), file: file, replay: replay)
        self.pending.withLock { pending in
            if pending.count >= Self.maxPending { pending.removeFirst() }
            pending.append(offer)
        }
    }

    /// The file offered for exactly `buffer`, if any (taken: each offer serves one write).
    func take(_ buffer: ByteBuffer) -> Match? {
        let address = Self.address(of: buffer)
        guard address != nil else { return nil }
        return self.pending.withLock { pending in
            guard let index = pending.firstIndex(where: { $0.address == address && $0.body.readableBytes == buffer.readableBytes }) else {
                return nil
            }
            let offer = pending.remove(at: index)
            return Match(file: offer.file, replay: offer.replay)
        }
    }

    var pendingCount: Int { self.pending.withLock { $0.count } }

    private static func address(of buffer: ByteBuffer) -> UnsafeRawPointer? {
        buffer.withUnsafeReadableBytes { UnsafeRawPointer($0.baseAddress) }
    }
}
