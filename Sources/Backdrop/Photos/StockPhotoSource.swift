import Foundation
import NIOPosix
import Synchronization

/// Serves the stock photo library: one photo per place and window.
///
/// The library is read before the server starts (``load()``, on NIO's thread pool: it reads and decodes every photo
/// to check it) and kept in memory, so serving a stock photo touches no disk.
package final class StockPhotoSource: PhotoSource {
    package let folder: URL
    let limits: DecodeLimits
    private let loaded: Mutex<StockPhotoLibrary?>

    /// A source whose library ``load()`` reads from `folder`.
    package init(folder: URL, limits: DecodeLimits = .init()) {
        self.folder = folder
        self.limits = limits
        self.loaded = Mutex(nil)
    }

    /// Reads the library (once; later calls return it), failing as ``StockPhotoLibrary/load(folder:limits:)`` does.
    @discardableResult
    package func load() async throws -> StockPhotoLibrary {
        if let library = self.loaded.withLock({ $0 }) { return library }
        let (folder, limits) = (self.folder, self.limits)
        let library = try await NIOThreadPool.singleton.runIfActive { try StockPhotoLibrary.load(folder: folder, limits: limits) }
        self.loaded.withLock { $0 = library }
        return library
    }

    /// The loaded library (empty before ``load()``).
    package var library: StockPhotoLibrary { self.loaded.withLock { $0 } ?? StockPhotoLibrary(entries: []) }

    /// Stock photos alone are not standing in for anything: their answers are cached for the whole window.
    package var substitutesFallbacks: Bool { false }

    package func photo(for place: Place, in window: TimeWindow) async throws -> SourcePhoto {
        let entries = try self.loadedEntries()
        return entries[PhotoChoice.index(place: place, window: window, count: entries.count)].photo
    }

    package func knownPhoto(for place: Place, in window: TimeWindow) async -> SourcePhoto? {
        try? await self.photo(for: place, in: window)
    }

    package func imageData(for photo: SourcePhoto, covering size: PixelSize) async throws -> EncodedImage {
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
