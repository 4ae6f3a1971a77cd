import NIOCore

/// One connection's request heads as bytes, from ``HitBytesHandler`` (which passes them to NIO's decoder) to
/// ``HitReplayHandler`` (which receives them decoded), oldest first: each decoded head is paired with the bytes it was
/// decoded from, so that the exact head of a replayed hit can be answered again without decoding (``HitReplays``).
///
/// The pairing holds only while every byte passed on is a whole plain head (``HeadBytes/isPlain(_:)``): one head
/// decoded from each, in order. Once the connection sends anything else (a body, a head split between reads, a head
/// the decoder refuses), it stops for good: the heads passed before it still pair with the first heads decoded, and
/// nothing is paired after them. Used on the channel's event loop only.
final class PassedHeads {
    private var heads = CircularBuffer<ByteBuffer>()
    /// Set once the pairing has stopped.
    private(set) var stopped = false

    /// `head`, a whole plain head, is passed to the decoder.
    func passed(_ head: ByteBuffer) {
        guard !self.stopped else { return }
        self.heads.append(head)
    }

    /// What follows is not paired with what is decoded.
    func stop() {
        self.stopped = true
    }

    /// The decoder refused what it was given: nothing passed on is paired any more.
    func broke() {
        self.stopped = true
        self.heads.removeAll()
    }

    /// The bytes of the head just decoded, if it was passed as a whole plain head.
    func decoded() -> ByteBuffer? {
        self.heads.popFirst()
    }
}
