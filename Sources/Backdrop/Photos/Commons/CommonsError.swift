/// Why a Commons search gave nothing: Commons busy or unreachable (`transient`), an answer that is not what was
/// expected (`malformed`), or an error Commons reported (`failed`).
struct CommonsError: Error, Sendable, CustomStringConvertible {
    enum Kind: String, Sendable { case transient, malformed, failed }

    let kind: Kind
    let message: String
    /// The network could not be reached at all (no route, no name): the whole source backs off, not the cell alone.
    let unreachable: Bool
    /// Commons asked for a pause (`429` with `Retry-After`), in seconds: the whole source honours it.
    let retryAfter: Double?

    init(_ kind: Kind, _ message: String, unreachable: Bool = false, retryAfter: Double? = nil) {
        self.kind = kind
        self.message = message
        self.unreachable = unreachable
        self.retryAfter = retryAfter
    }

    /// How long the whole source should pause after this error, if it should.
    var sourcePause: Double? { self.retryAfter ?? (self.unreachable ? 60 : nil) }

    var description: String { self.message }
}
