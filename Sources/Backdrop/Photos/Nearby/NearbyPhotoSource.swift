import Foundation
import Logging
import Tracing

/// Photos taken near the place, from a source that searches by location (Flickr, Commons: ``NearbySearch``), with
/// the next source in `photos.sources` standing in whenever this one cannot serve: no location, key rejected, budget
/// spent, errors, timeouts, empty results, or photos that fail to download, decode or pass the quality gate.
///
/// A cell is searched once per `resultsSeconds` (a window for Flickr, a day for Commons): concurrent requests share the
/// search; with a shared database, every replica does (``SharedSearch``). Its results are ranked for each window's sky
/// (``CellFinding``), the same in every replica; `variant` N takes the N-th. With a photo store, a restart keeps the
/// window's chosen photo without a search. When the source fails, a cell's photo from an earlier window (younger than
/// `maxStale`) is served, marked stale, before the next source. Denied photos (``PhotoDenylist``) are never chosen.
struct NearbyPhotoSource: PhotoSource {
    /// A cell's finding for one window.
    enum CellResult: Sendable {
        /// Its results (this replica's search or another's), ranked for the window.
        case found(CellFinding)
        /// The photo chosen earlier in the window (variant 0), read back from the store after a restart (no search made).
        case restored(SourcePhoto)
    }

    /// What asking about a cell gave.
    enum Lookup {
        case found(CellFinding)
        case unavailable
    }

    let search: any NearbySearch
    let downloads: PhotoDownloads
    /// The next source in `photos.sources`: another nearby source, or the stock photos.
    let next: any PhotoSource
    let store: (any PhotoStore)?
    let maxStale: TimeInterval
    let deny: PhotoDenylist
    let shared: SharedSearch
    let clock: any WallClock
    let logger: Logger
    let metrics: BackdropMetrics
    let state: SearchState
    let findings: MemoryLRU<CellWindow, CellResult>
    let results: MemoryLRU<CellWindow, [CandidatePhoto]>

    init(
        search: any NearbySearch,
        downloads: PhotoDownloads,
        next: any PhotoSource,
        store: (any PhotoStore)? = nil,
        maxStale: TimeInterval = 24 * 3600,
        deny: PhotoDenylist = PhotoDenylist(),
        coordinator: any ClusterCoordinator,
        cacheEntries: Int = 10_000,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics = BackdropMetrics()
    ) {
        self.search = search
        self.downloads = downloads
        self.next = next
        self.store = store
        self.maxStale = maxStale
        self.deny = deny
        self.state = SearchState(clock: clock)
        self.shared = SharedSearch(coordinator: coordinator, state: self.state, clock: clock, metrics: metrics)
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.findings = MemoryLRU(budget: cacheEntries) { _ in 1 }
        self.results = MemoryLRU(budget: cacheEntries) { _ in 1 }
    }

    package func photo(for place: Place, in window: TimeWindow, variant: Int) async throws -> SourcePhoto {
        guard case .cell(let cell) = place else { return try await self.next.photo(for: place, in: window, variant: variant) }
        let key = CellWindow(cell: cell.value, window: window.index)
        let unusable = await self.state.unusable(key)
        let cached = await self.findings.cached(key)
        if case .restored(let photo)? = cached {
            if unusable.isEmpty, variant == 0 { return photo }
            await self.findings.remove(key)  // the restored photo failed, or another variant is asked: the results are needed
        } else if cached == nil, unusable.isEmpty, variant == 0, let stored = await self.store?.storedPhoto(cell: self.storeName(cell)),
            stored.window == window.index, stored.photo.origin == self.search.origin, !stored.photo.stale, !self.deny.denies(stored.photo)
        {
            await self.findings.insert(.restored(stored.photo), for: key)
            return stored.photo
        }
        switch try await self.waitedLookup(cell, key: key, window: window) {
        case .found(let finding):
            guard let photo = finding.photo(variant: variant, excluding: unusable) else {
                return try await self.nextSource(place, window, variant)
            }
            return photo
        case .unavailable:
            if unusable.isEmpty, let stored = await self.standIn(cell) {
                return self.stale(stored.photo)
            }
            return try await self.nextSource(place, window, variant)
        }
    }

    /// ``lookup(_:key:window:)``, the request counted as waiting on it until it ends; a wait cut short (the request's
    /// task cancelled by its deadline) stays counted, so that the fallback knows this source was the one waited on.
    private func waitedLookup(_ cell: Geohash, key: CellWindow, window: TimeWindow) async throws -> Lookup {
        await self.state.beginWait(key)
        do {
            let lookup = try await self.lookup(cell, key: key, window: window)
            await self.state.endWait(key)
            return lookup
        } catch {
            if !Task.isCancelled { await self.state.endWait(key) }
            throw error
        }
    }

    /// The cell's stored photo from this source, if it is young enough (`maxStale`) to stand in while the source
    /// cannot serve.
    private func standIn(_ cell: Geohash) async -> StoredPhoto? {
        guard let stored = await self.store?.storedPhoto(cell: self.storeName(cell)), stored.photo.origin == self.search.origin,
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
        guard case .cell(let cell) = place else { return await self.next.knownPhoto(for: place, in: window, variant: variant) }
        let key = CellWindow(cell: cell.value, window: window.index)
        let unusable = await self.state.unusable(key)
        switch await self.findings.cached(key) {
        case .restored(let photo)?: return unusable.isEmpty && variant == 0 ? photo : nil
        case .found(let finding)?: return finding.photo(variant: variant, excluding: unusable)
        case nil: return nil  // unknown: the full path decides (the next source, stale, or a search)
        }
    }

    package func imageData(for photo: SourcePhoto, covering size: PixelSize) async throws -> EncodedImage {
        guard photo.origin == self.search.origin else { return try await self.next.imageData(for: photo, covering: size) }
        return try await self.downloads.imageData(for: photo, covering: size)
    }

    package func markUnusable(_ photo: SourcePhoto, place: Place, window: TimeWindow) async {
        guard photo.origin == self.search.origin, case .cell(let cell) = place else {
            return await self.next.markUnusable(photo, place: place, window: window)
        }
        let key = CellWindow(cell: cell.value, window: window.index)
        await self.state.markUnusable(key, photoID: photo.id)
        // Remember the replacement across restarts too (when the results are at hand; otherwise the next search does).
        if case .found(let finding)? = await self.findings.cached(key),
            let next = finding.photo(variant: 0, excluding: await self.state.unusable(key))
        {
            await self.store?.storePhoto(next, cell: self.storeName(cell), window: window.index)
        }
    }

    package func fallback(for place: Place, in window: TimeWindow, variant: Int) async throws -> SourcePhoto {
        guard case .cell(let cell) = place else { return try await self.next.fallback(for: place, in: window, variant: variant) }
        let key = CellWindow(cell: cell.value, window: window.index)
        // The deadline counts against this source only if the request was waiting on it: its lookup cut short, or its
        // photo (found, so downloading or rendering). A source the request never reached is not backed off.
        let interrupted = await self.state.takeInterruptedWait(key)
        let serving = await self.knownPhoto(for: place, in: window, variant: variant) != nil
        if interrupted || serving { await self.state.noteTimeout(for: key) }
        // Only a photo whose bytes are at hand: the fallback must not wait on the source again.
        if let stored = await self.standIn(cell), await self.store?.hasSourceImage(photoID: stored.photo.id) == true {
            return stored.window == window.index && !stored.photo.stale && variant == 0 ? stored.photo : self.stale(stored.photo)
        }
        self.countTurnToStock()
        return try await self.next.fallback(for: place, in: window, variant: variant)
    }

    private func nextSource(_ place: Place, _ window: TimeWindow, _ variant: Int) async throws -> SourcePhoto {
        self.countTurnToStock()
        return try await self.next.photo(for: place, in: window, variant: variant)
    }

    /// `backdrop_fallbacks_total{kind="stock"}` counts each request the stock photos answer once: at the last source in
    /// line before them (a source that turns to another searching source leaves the count to that one).
    private func countTurnToStock() {
        if !(self.next is NearbyPhotoSource) { self.metrics.fallback("stock") }
    }

    /// The name the photo store keeps this source's photo for `cell` under: each source in line keeps its own, so
    /// that a photo one serves while another fails does not overwrite the other's stale stand-in.
    func storeName(_ cell: Geohash) -> String { "\(self.search.origin.rawValue)/\(cell.value)" }

}

extension NearbyPhotoSource.Lookup {
    init(_ result: NearbyPhotoSource.CellResult) {
        switch result {
        case .found(let finding): self = .found(finding)
        case .restored: self = .found(.empty)  // the restored photo proved unusable, and no search result is at hand
        }
    }
}
