/// What a request asks a photo for: a geohash cell, or no location at all.
public enum Place: Sendable, Hashable, CustomStringConvertible {
    case cell(Geohash)
    case unknown

    /// A stable key: the geohash, or "none".
    public var key: String {
        switch self {
        case .cell(let cell): cell.value
        case .unknown: "none"
        }
    }

    public var description: String { self.key }
}
