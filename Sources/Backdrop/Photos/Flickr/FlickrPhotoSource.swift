import Foundation
import Logging

/// Photos taken near the place, from Flickr, with the stock photos standing in whenever Flickr cannot serve:
/// no location, key rejected, quota spent, errors, timeouts, empty results, or photos that fail to download or decode.
///
/// A cell is searched once per window (concurrent requests share the search). Its photo is picked from the
/// usable results by a stable hash of cell and window, so replicas seeing the same results serve the same photo.
public struct FlickrPhotoSource: PhotoSource {
    /// A cell's search result for one window.
    enum CellResult: Sendable {
        case photos([FlickrPhoto])
        case empty
    }

    let settings: Settings.Flickr
    let searcher: any FlickrSearching
    let downloader: any ImageDownloading
    let stock: StockPhotoSource
    let budget: CallBudget
    let clock: any WallClock
    let logger: Logger
    let state: FlickrState
    let cells: MemoryLRU<FlickrState.CellKey, CellResult>
    let downloads: MemoryLRU<String, [UInt8]>

    public init(settings: Settings.Flickr, searcher: any FlickrSearching, downloader: any ImageDownloading, stock: StockPhotoSource,
                clock: any WallClock, logger: Logger) {
        self.settings = settings
        self.searcher = searcher
        self.downloader = downloader
        self.stock = stock
        self.budget = CallBudget(callsPerHour: settings.callsPerHour, clock: clock)
        self.clock = clock
        self.logger = logger
        self.state = FlickrState(clock: clock)
        self.cells = MemoryLRU(budget: settings.cellCacheEntries) { _ in 1 }
        self.downloads = MemoryLRU(budget: settings.downloadCacheMB << 20) { $0.count }
    }

    public func photo(for place: Place, in window: TimeWindow) async throws -> SourcePhoto {
        guard case .cell(let cell) = place else { return try await self.stock.photo(for: place, in: window) }
        let key = FlickrState.CellKey(cell: cell.value, window: window.index)
        guard let photos = await self.photos(for: cell, key: key) else { return try await self.stock.photo(for: place, in: window) }
        // The chosen photo, or after it proved unusable the next one, once; then stock.
        let skipped = await self.state.unusableCount(key)
        guard skipped == 0 || (skipped == 1 && photos.count > 1) else { return try await self.stock.photo(for: place, in: window) }
        let index = Int((PhotoChoice.stableHash("\(cell.value)/\(window.index)") + UInt64(skipped)) % UInt64(photos.count))
        return photos[index].sourcePhoto
    }

    public func imageData(for photo: SourcePhoto, covering size: PixelSize) async throws -> EncodedImage {
        guard photo.origin == .flickr else { return try await self.stock.imageData(for: photo, covering: size) }
        guard let variant = photo.size(covering: size) else { throw DownloadError(.failed, "photo \(photo.id) has no sizes") }
        let downloader = self.downloader
        let bytes = try await self.downloads.value(for: variant.url) { try await downloader.download(variant.url) }
        return EncodedImage(bytes: bytes, variant: variant.label)
    }

    public func markUnusable(_ photo: SourcePhoto, place: Place, window: TimeWindow) async {
        guard photo.origin == .flickr, case .cell(let cell) = place else { return }
        await self.state.markUnusable(FlickrState.CellKey(cell: cell.value, window: window.index))
    }

    /// The cell's usable results, or nil when Flickr has none or cannot be asked.
    private func photos(for cell: Geohash, key: FlickrState.CellKey) async -> [FlickrPhoto]? {
        if let cached = await self.cells.cached(key) { return cached.photos }
        guard await self.state.mayCall(key) else { return nil }
        do {
            let result = try await self.cells.value(for: key) { try await self.search(cell) }
            if await self.state.noteSuccess(for: key) { self.logger.notice("Flickr accepts the API key again") }
            return result.photos
        } catch let error as FlickrError {
            if await self.state.noteFailure(error, for: key) {
                self.logger.error("Flickr rejected the API key: serving stock photos, retrying at most once a minute")
            } else if error.kind != .invalidKey {
                self.logger.warning("Flickr search failed: serving a stock photo", metadata: ["cell": "\(cell)", "error": "\(error)"])
            }
            return nil
        } catch {
            self.logger.warning("Flickr search failed: serving a stock photo", metadata: ["cell": "\(cell)", "error": "\(error)"])
            return nil
        }
    }

    /// Searches around the cell's centre; with no usable result widens the radius up to 32 km, then drops the tags.
    private func search(_ cell: Geohash) async throws -> CellResult {
        let centre = cell.centre
        let minUploadDate = Int64(self.clock.now().timeIntervalSince1970) - Int64(self.settings.minUploadAgeDays) * 86400
        var steps = [(self.settings.radiusKm, self.settings.tags)]
        for radius in [min(32, self.settings.radiusKm * 2), 32] where radius > steps[steps.count - 1].0 {
            steps.append((radius, self.settings.tags))
        }
        if !self.settings.tags.isEmpty { steps.append((32, "")) }
        for (radius, tags) in steps {
            guard await self.budget.take() else { throw FlickrError(.transient, "Flickr call budget is spent for now") }
            let query = FlickrSearchQuery(latitude: centre.latitude, longitude: centre.longitude, radiusKm: radius, tags: tags,
                                          licenses: self.settings.licenses, minUploadDate: minUploadDate)
            let response = try await self.searcher.search(query)
            if !response.photos.isEmpty { return .photos(response.photos) }
        }
        return .empty
    }

    public var callsAvailable: Int {
        get async { await self.budget.available }
    }
}

extension FlickrPhotoSource.CellResult {
    var photos: [FlickrPhoto]? {
        if case .photos(let photos) = self { return photos }
        return nil
    }
}
