import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Tracing

/// Photos taken near the place, from Flickr, with the stock photos standing in whenever Flickr cannot serve:
/// no location, key rejected, quota spent, errors, timeouts, empty results, or photos that fail to download or decode.
///
/// A cell is searched once per window (concurrent requests share the search; with a photo store, a restart too; with
/// a shared database, every replica: see ``SharedSearch``), its results ranked for the sky at the place
/// (``CellFinding``): `variant` N takes the N-th. When Flickr fails, a cell's photo from an earlier window (younger
/// than `maxStale`) is served, marked stale, before stock. Denied photos (``PhotoDenylist``) are never chosen.
package struct FlickrPhotoSource: PhotoSource {
    /// A cell's search result for one window.
    enum CellResult: Sendable {
        /// What this replica's search or another's found.
        case found(CellFinding)
        /// The photo chosen earlier in the window (variant 0), read back from the store after a restart (no search made).
        case restored(SourcePhoto)
    }

    /// What asking about a cell gave.
    enum Lookup {
        case found(CellFinding)
        case unavailable
    }

    let settings: Settings.Flickr
    let searcher: any FlickrSearching
    let downloads: PhotoDownloads
    let stock: StockPhotoSource
    let store: (any PhotoStore)?
    let maxStale: TimeInterval
    let deny: PhotoDenylist
    let shared: SharedSearch
    let clock: any WallClock
    let logger: Logger
    let metrics: BackdropMetrics
    let state: SearchState
    let cells: MemoryLRU<CellWindow, CellResult>

    init(
        settings: Settings.Flickr,
        searcher: any FlickrSearching,
        downloader: any ImageDownloading,
        stock: StockPhotoSource,
        store: (any PhotoStore)? = nil,
        maxStale: TimeInterval = 24 * 3600,
        deny: PhotoDenylist = PhotoDenylist(),
        coordinator: (any ClusterCoordinator)? = nil,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics = BackdropMetrics()
    ) {
        self.settings = settings
        self.searcher = searcher
        self.downloads = PhotoDownloads(downloader: downloader, store: store, memoryMB: settings.downloadCacheMB, metrics: metrics)
        self.stock = stock
        self.store = store
        self.maxStale = maxStale
        self.deny = deny
        self.state = SearchState(clock: clock)
        self.shared = SharedSearch(
            coordinator: coordinator ?? LocalCoordinator(callsPerHour: settings.callsPerHour, clock: clock, metrics: metrics),
            state: self.state,
            clock: clock,
            metrics: metrics
        )
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.cells = MemoryLRU(budget: settings.cellCacheEntries) { _ in 1 }
    }

    package func photo(for place: Place, in window: TimeWindow, variant: Int) async throws -> SourcePhoto {
        guard case .cell(let cell) = place else { return try await self.stock.photo(for: place, in: window, variant: variant) }
        let key = CellWindow(cell: cell.value, window: window.index)
        let unusable = await self.state.unusable(key)
        let cached = await self.cells.cached(key)
        if case .restored(let photo)? = cached {
            if unusable.isEmpty, variant == 0 { return photo }
            await self.cells.remove(key)  // the restored photo failed, or another variant is asked: the search results are needed
        } else if cached == nil, unusable.isEmpty, variant == 0, let stored = await self.store?.storedPhoto(cell: cell.value),
            stored.window == window.index, stored.photo.origin == .flickr, !stored.photo.stale, !self.deny.denies(stored.photo)
        {
            await self.cells.insert(.restored(stored.photo), for: key)
            return stored.photo
        }
        switch try await self.lookup(cell, key: key, window: window) {
        case .found(let finding):
            guard let photo = finding.photo(variant: variant, excluding: unusable) else {
                return try await self.stockFallback(place, window, variant)
            }
            return photo
        case .unavailable:
            if unusable.isEmpty, let stored = await self.standIn(cell) {
                return self.stale(stored.photo)
            }
            return try await self.stockFallback(place, window, variant)
        }
    }

    /// The cell's stored Flickr photo, if it is young enough (`maxStale`) to stand in while Flickr cannot serve.
    private func standIn(_ cell: Geohash) async -> StoredPhoto? {
        guard let stored = await self.store?.storedPhoto(cell: cell.value), stored.photo.origin == .flickr,
            self.clock.now().timeIntervalSince(stored.created) <= self.maxStale, !self.deny.denies(stored.photo)
        else { return nil }
        return stored
    }

    /// `photo` marked stale, counted as such a fallback.
    private func stale(_ photo: SourcePhoto) -> SourcePhoto {
        self.metrics.fallback("stale")
        var photo = photo
        photo.stale = true
        return photo
    }

    package func knownPhoto(for place: Place, in window: TimeWindow, variant: Int) async -> SourcePhoto? {
        guard case .cell(let cell) = place else { return await self.stock.knownPhoto(for: place, in: window, variant: variant) }
        let key = CellWindow(cell: cell.value, window: window.index)
        let unusable = await self.state.unusable(key)
        switch await self.cells.cached(key) {
        case .restored(let photo)?: return unusable.isEmpty && variant == 0 ? photo : nil
        case .found(let finding)?: return finding.photo(variant: variant, excluding: unusable)
        case nil: return nil  // unknown: the full path decides (stock, stale, or a search)
        }
    }

    package func imageData(for photo: SourcePhoto, covering size: PixelSize) async throws -> EncodedImage {
        guard photo.origin == .flickr else { return try await self.stock.imageData(for: photo, covering: size) }
        return try await self.downloads.imageData(for: photo, covering: size)
    }

    package func markUnusable(_ photo: SourcePhoto, place: Place, window: TimeWindow) async {
        guard photo.origin == .flickr, case .cell(let cell) = place else { return }
        let key = CellWindow(cell: cell.value, window: window.index)
        await self.state.markUnusable(key, photoID: photo.id)
        // Remember the replacement across restarts too (when the results are at hand; otherwise the next search does).
        if case .found(let finding)? = await self.cells.cached(key),
            let next = finding.photo(variant: 0, excluding: await self.state.unusable(key))
        {
            await self.store?.storePhoto(next, cell: cell.value, window: window.index)
        }
    }

    package func fallback(for place: Place, in window: TimeWindow, variant: Int) async throws -> SourcePhoto {
        guard case .cell(let cell) = place else { return try await self.stock.photo(for: place, in: window, variant: variant) }
        await self.state.noteTimeout(for: CellWindow(cell: cell.value, window: window.index))
        // Only a photo whose bytes are at hand: the fallback must not wait on Flickr again.
        if let stored = await self.standIn(cell), await self.store?.hasSourceImage(photoID: stored.photo.id) == true {
            return stored.window == window.index && !stored.photo.stale && variant == 0 ? stored.photo : self.stale(stored.photo)
        }
        return try await self.stockFallback(place, window, variant)
    }

    private func stockFallback(_ place: Place, _ window: TimeWindow, _ variant: Int) async throws -> SourcePhoto {
        self.metrics.fallback("stock")
        return try await self.stock.photo(for: place, in: window, variant: variant)
    }

    /// The cell's usable results, nothing usable, or Flickr cannot be asked now. A search stores the photo it leads to.
    /// Throws only `CancellationError`: a request that gave up (its deadline passed) gets its fallback from the
    /// deadline's path, counted once there.
    private func lookup(_ cell: Geohash, key: CellWindow, window: TimeWindow) async throws -> Lookup {
        if let cached = await self.cells.cached(key) { return Lookup(cached) }
        guard await self.state.mayCall(key) else { return .unavailable }
        do {
            let result = try await self.cells.value(for: key) {
                let finding = try await self.find(cell, key: key, window: window)
                if let chosen = finding.photo(variant: 0, excluding: await self.state.unusable(key)) {
                    await self.store?.storePhoto(chosen, cell: cell.value, window: window.index)
                }
                return CellResult.found(finding)
            }
            if await self.state.noteSuccess(for: key) { self.logger.notice("Flickr accepts the API key again") }
            return Lookup(result)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            let rejected = (error as? FlickrError)?.kind == .invalidKey || (error as? SharedSearch.Refusal) == .keyRejectedElsewhere
            if await self.state.noteFailure(keyRejected: rejected, for: key) {
                self.logger.error("Flickr rejected the API key: serving stock photos, retrying at most once a minute")
            } else if !rejected {
                self.logger.warning("Flickr search failed: serving a fallback photo", metadata: ["cell": "\(cell)", "error": "\(error)"])
            }
            return .unavailable
        }
    }

    /// What the cell holds for the window: another replica's finding, or this replica's own search ranked here and
    /// shared with the others (whose finding wins if one published first, so that every replica serves the same photo).
    private func find(_ cell: Geohash, key: CellWindow, window: TimeWindow) async throws -> CellFinding {
        try await self.shared.finding(
            key,
            read: { CellFinding(sharedJSON: $0, deny: self.deny) },
            encode: \.sharedJSON,
            isKeyRejection: { ($0 as? FlickrError)?.kind == .invalidKey },
            onUnreadable: { self.logger.warning("a cell's shared result cannot be read: searching it here", metadata: ["cell": "\(key.cell)"]) },
            search: { shared in try await self.rank(try await self.search(cell, shared), cell: cell, window: window) }
        )
    }

    /// A search's results ranked for the cell-window, in a span saying the sky, how many, and the chosen one's score.
    private func rank(_ results: [FlickrPhoto], cell: Geohash, window: TimeWindow) async -> CellFinding {
        await withRequestSpan("photo.rank") { span in
            let ranked = CellFinding.choosing(from: results, cell: cell, window: window, deny: self.deny)
            span.attributes["backdrop.sun.phase"] = ranked.phase.group
            span.attributes["backdrop.photo.candidates"] = results.count
            if let score = ranked.score { span.attributes["backdrop.photo.score"] = score.map(String.init).joined(separator: ",") }
            return ranked.finding
        }
    }
}

extension FlickrPhotoSource.Lookup {
    init(_ result: FlickrPhotoSource.CellResult) {
        switch result {
        case .found(let finding): self = .found(finding)
        case .restored: self = .found(.empty)  // the restored photo proved unusable, and no search result is at hand
        }
    }
}
