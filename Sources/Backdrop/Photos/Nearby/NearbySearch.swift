/// What a source of photos taken near a place does its own way: how it searches a cell, how long a cell's results
/// last, which of its errors mean its key was rejected. ``NearbyPhotoSource`` does the rest alike for every such
/// source: sharing the search between requests and replicas, ranking, variants, replacements, the denylist and the
/// fallbacks.
protocol NearbySearch: Sendable {
    var origin: PhotoOrigin { get }
    /// Its name in logs: "Flickr", "Commons".
    var name: String { get }
    /// How long a cell's results serve (a multiple of the window): a window for Flickr, whose interesting photos
    /// change; a day for Commons, which changes slowly. They are ranked again for each window's sky.
    var resultsSeconds: Int { get }
    /// The cell's usable results, best first in the source's own order (empty: nothing near). Each call is taken from
    /// `shared`'s budget. Throws the source's errors; ``isKeyRejection(_:)`` tells which mean the key was refused.
    func search(_ cell: Geohash, shared: any CellSharing) async throws -> [CandidatePhoto]
    func isKeyRejection(_ error: any Error) -> Bool
    /// How long every cell should leave the source alone after `error` (no network at all, or a `Retry-After`), in
    /// seconds; nil when only the cell backs off.
    func sourcePause(after error: any Error) -> Double?
}

extension NearbySearch {
    func sourcePause(after error: any Error) -> Double? { nil }
}
