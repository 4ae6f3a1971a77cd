/// Who a request is for, so that the render gate serves clients in turn and the photo downloads count each network's
/// share: the peer's address, or the address a trusted proxy names (``ClientAddress``).
struct RequestClient: Hashable, Sendable {
    package let name: String

    package init(_ name: String) {
        self.name = name
    }

    static let unknown = RequestClient("unknown")
}
