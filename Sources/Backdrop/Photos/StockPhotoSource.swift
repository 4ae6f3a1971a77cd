import Foundation
import NIOPosix
import Synchronization

/// Serves the stock photo library: for a place, window and class of screen, the photos whose sky is nearest the place's
/// now and that fit the screen best, in turn.
///
/// The library is read before the server starts (``load()``, on NIO's thread pool: it reads and decodes every photo
/// to check it) and kept in memory, so serving a stock photo touches no disk. Denied photos are left out of it.
package final class StockPhotoSource: Sendable {
    package let folder: URL
    /// The operator's own photos, checked strictly (``StockPhotoLibrary/loadOperators(folder:limits:)``); nil none.
    let extraFolder: URL?
    let limits: DecodeLimits
    let deny: PhotoDenylist
    private let loaded: Mutex<StockPhotoLibrary?>
    /// The library ranked for each sky and class of screen asked for so far.
    private let ranked = Mutex<[Ranked.Key: Ranked]>([:])

    /// A source whose library ``load()`` reads from `folder` and `extraFolder`, without the photos `deny` names.
    package init(folder: URL, extraFolder: URL? = nil, limits: DecodeLimits = .init(), deny: PhotoDenylist = PhotoDenylist()) {
        self.folder = folder
        self.extraFolder = extraFolder
        self.limits = limits
        self.deny = deny
        self.loaded = Mutex(nil)
    }

    /// Reads the library (once; later calls return it), failing as ``StockPhotoLibrary/load(folder:limits:)`` does,
    /// or when `deny` names every photo in it.
    @discardableResult
    func load() async throws -> StockPhotoLibrary {
        if let library = self.loaded.withLock({ $0 }) { return library }
        let (folder, extra, limits, deny) = (self.folder, self.extraFolder, self.limits, self.deny)
        let library = try await NIOThreadPool.singleton.runIfActive {
            let shipped = try StockPhotoLibrary.load(folder: folder, limits: limits)
            let own = try extra.map { try StockPhotoLibrary.loadOperators(folder: $0, limits: limits) }
            return StockPhotoLibrary(entries: (shipped.entries + (own?.entries ?? [])).filter { !deny.denies($0.photo) })
        }
        guard !library.entries.isEmpty else {
            throw StockPhotoError("photos.deny names every stock photo in \(folder.path): at least one must stay to fall back on")
        }
        self.loaded.withLock { $0 = library }
        return library
    }

    /// The loaded library (empty before ``load()``).
    var library: StockPhotoLibrary { self.loaded.withLock { $0 } ?? StockPhotoLibrary(entries: []) }

    func photo(for place: Place, in window: TimeWindow, variant: Int, shape: ScreenShape) async throws -> SourcePhoto {
        let entries = try self.loadedEntries()
        // The ranking depends on the sky and the screen's class alone: made once for each (a few), not on every hit.
        let key = Ranked.Key(place: place, window: window, shape: shape)
        let ranked = self.ranked.kept(key) { Ranked(entries.map(\.photo), sizes: entries.map(\.size), key: key) }
        guard let photo = PhotoVariants.pick(variant, from: ranked.order(place: place, window: window)) else {
            throw StockPhotoError("no stock photos")
        }
        return photo
    }

    func imageData(for photo: SourcePhoto, covering size: PixelSize) async throws -> EncodedImage {
        guard let entry = try self.loadedEntries().first(where: { $0.photo.id == photo.id }) else {
            throw StockPhotoError("unknown stock photo \(photo.id)")
        }
        return EncodedImage(bytes: entry.bytes, variant: entry.size.description)
    }

    private func loadedEntries() throws -> [StockPhotoLibrary.Entry] {
        let entries = self.library.entries
        guard !entries.isEmpty else { throw StockPhotoError("stock photos in \(self.folder.path) are not loaded") }
        return entries
    }
}
