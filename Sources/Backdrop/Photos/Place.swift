/// What a request asks a photo for: a geohash cell, or no location at all.
package enum Place: Sendable, Hashable, CustomStringConvertible {
    case cell(Geohash)
    case unknown

    /// A stable key: the geohash, or "none".
    package var key: String {
        switch self {
        case .cell(let cell): cell.value
        case .unknown: "none"
        }
    }

    package var description: String { self.key }
}
