import Foundation

/// One cell in one time window: what replicas agree about.
struct CellWindow: Hashable, Sendable {
    let cell: String
    let window: Int64
}

/// What a replica may do about a cell-window's search, as agreed with the others.
enum CellClaim: Sendable, Equatable {
    /// Search the cell here: this replica holds the cell-window's lease, or works alone (the database is not there).
    case search
    /// A replica searched the cell in this window already: what it found, as it published it.
    case found(Data)
    /// A replica's search of the cell failed moments ago: back off, as if this one had failed.
    case failing
    /// A replica had the API key rejected moments ago.
    case keyRejected
    /// Another replica holds the cell-window's lease for this many seconds more: look again shortly.
    case wait(seconds: Double)

    /// How traces name it.
    var label: String {
        switch self {
        case .search: "search"
        case .found: "shared"
        case .failing: "failing"
        case .keyRejected: "key_rejected"
        case .wait: "wait"
        }
    }
}
