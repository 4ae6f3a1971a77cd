/// What a replica may do about a cell-window's Flickr search, as agreed with the others.
enum CellClaim: Sendable, Equatable {
    /// Search the cell here: this replica holds the cell-window's lease, or works alone (the database is not there).
    case search
    /// A replica searched the cell in this window already: what it found.
    case found(CellFinding)
    /// A replica's search of the cell failed moments ago: back off, as if this one had failed.
    case failing
    /// A replica had the API key rejected moments ago.
    case keyRejected
    /// Another replica holds the cell-window's lease for this many seconds more: look again shortly.
    case wait(seconds: Double)
}
