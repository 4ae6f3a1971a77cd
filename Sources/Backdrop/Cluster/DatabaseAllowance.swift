/// What is left of the time one request may spend waiting on the database (`cluster.timeoutSeconds`), across every
/// query it makes. Spent, the request goes on with the replica's local state.
struct DatabaseAllowance: Sendable {
    private(set) var remaining: Duration

    init(_ total: Duration) {
        self.remaining = total
    }

    var isSpent: Bool { self.remaining <= .zero }

    mutating func spend(_ duration: Duration) {
        self.remaining -= duration
    }
}
