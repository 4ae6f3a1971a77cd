import Foundation

/// What a nearby source keeps on disk: each cell's search results for their period and its chosen photo (so a restart
/// makes no new search while they serve, and so an expired photo can stand in when the source fails) and the downloaded
/// source JPEGs.
protocol PhotoStore: Sendable {
    /// A cell's search results (as replicas share them) stored for `cell` (the source's name for it) and `window`, the
    /// last window they serve; nil when none are stored for that period.
    func storedResults(cell: String, window: Int64) async -> Data?
    func storeResults(_ results: Data, cell: String, window: Int64) async
    /// The last photo chosen for `cell`, with the window it was chosen in and when.
    func storedPhoto(cell: String) async -> StoredPhoto?
    func storePhoto(_ photo: SourcePhoto, cell: String, window: Int64) async
    /// A downloaded size of a photo; with `variant` nil, the largest size stored.
    func sourceImage(photoID: String, variant: String?) async -> [UInt8]?
    /// Whether some size of the photo is stored, without reading it.
    func hasSourceImage(photoID: String) async -> Bool
    func storeSourceImage(_ bytes: [UInt8], photoID: String, variant: String) async
}

/// The photo a source last chose for a cell, as the store keeps it.
struct StoredPhoto: Sendable {
    package let photo: SourcePhoto
    package let window: Int64
    package let created: Date

    /// Whether it is the window's own choice, to serve after a restart without a search: chosen in `window`, fresh,
    /// and not denied since.
    func isRestorable(in window: TimeWindow, deny: PhotoDenylist) -> Bool {
        self.window == window.index && !self.photo.stale && !deny.denies(self.photo)
    }

    /// Whether it may stand in (stale) while its source cannot serve: no older than `maxStale`, and not denied since.
    func mayStandIn(at now: Date, maxStale: Duration, deny: PhotoDenylist) -> Bool {
        now.timeIntervalSince(self.created) <= maxStale / .seconds(1) && !deny.denies(self.photo)
    }
}
