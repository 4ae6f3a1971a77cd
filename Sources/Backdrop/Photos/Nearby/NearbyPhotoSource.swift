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
package struct NearbyPhotoSource: PhotoSource {
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
        } else if cached == nil, unusable.isEmpty, variant == 0, let stored = await self.store?.storedPhoto(cell: cell.value),
            stored.window == window.index, stored.photo.origin == self.search.origin, !stored.photo.stale, !self.deny.denies(stored.photo)
        {
            await self.findings.insert(.restored(stored.photo), for: key)
            return stored.photo
        }
        switch try await self.lookup(cell, key: key, window: window) {
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

    /// The cell's stored photo from this source, if it is young enough (`maxStale`) to stand in while the source
    /// cannot serve.
    private func standIn(_ cell: Geohash) async -> StoredPhoto? {
        guard let stored = await self.store?.storedPhoto(cell: cell.value), stored.photo.origin == self.search.origin,
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
            await self.store?.storePhoto(next, cell: cell.value, window: window.index)
        }
    }

    package func fallback(for place: Place, in window: TimeWindow, variant: Int) async throws -> SourcePhoto {
        guard case .cell(let cell) = place else { return try await self.next.fallback(for: place, in: window, variant: variant) }
        await self.state.noteTimeout(for: CellWindow(cell: cell.value, window: window.index))
        // Only a photo whose bytes are at hand: the fallback must not wait on the source again.
        if let stored = await self.standIn(cell), await self.store?.hasSourceImage(photoID: stored.photo.id) == true {
            return stored.window == window.index && !stored.photo.stale && variant == 0 ? stored.photo : self.stale(stored.photo)
        }
        self.metrics.fallback(self.fallbackLabel)
        return try await self.next.fallback(for: place, in: window, variant: variant)
    }

    private func nextSource(_ place: Place, _ window: TimeWindow, _ variant: Int) async throws -> SourcePhoto {
        self.metrics.fallback(self.fallbackLabel)
        return try await self.next.photo(for: place, in: window, variant: variant)
    }

    /// What the fallback metric calls a turn to the next source: `stock` when it is the stock photos (as it always
    /// was), else its origin.
    private var fallbackLabel: String { (self.next as? NearbyPhotoSource)?.search.origin.rawValue ?? "stock" }

    /// The cell's ranked results for the window, nothing usable, or the source cannot be asked now. A search stores
    /// the photo it leads to. Throws only `CancellationError`: a request that gave up (its deadline passed) gets its
    /// fallback from the deadline's path, counted once there.
    private func lookup(_ cell: Geohash, key: CellWindow, window: TimeWindow) async throws -> Lookup {
        if let cached = await self.findings.cached(key) { return Lookup(cached) }
        guard await self.state.mayCall(key) else { return .unavailable }
        let name = self.search.name
        do {
            let result = try await self.findings.value(for: key) {
                let finding = await self.rank(try await self.results(cell, window: window), cell: cell, window: window)
                if let chosen = finding.photo(variant: 0, excluding: await self.state.unusable(key)) {
                    await self.store?.storePhoto(chosen, cell: cell.value, window: window.index)
                }
                return CellResult.found(finding)
            }
            if await self.state.noteSuccess(for: key) { self.logger.notice("\(name) accepts the API key again") }
            return Lookup(result)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            let rejected = self.search.isKeyRejection(error) || (error as? SharedSearch.Refusal) == .keyRejectedElsewhere
            if let pause = self.search.sourcePause(after: error) { await self.state.pause(pause) }
            if await self.state.noteFailure(keyRejected: rejected, for: key) {
                self.logger.error("\(name) rejected the API key: serving fallback photos, retrying at most once a minute")
            } else if !rejected {
                self.logger.warning("\(name) search failed: serving a fallback photo", metadata: ["cell": "\(cell)", "error": "\(error)"])
            }
            return .unavailable
        }
    }

    /// The cell's results for the period of `resultsSeconds` that holds `window`: from memory, from another replica,
    /// or this replica's own search, shared with the others (whose results win if one published first, so that every
    /// replica ranks the same).
    private func results(_ cell: Geohash, window: TimeWindow) async throws -> [CandidatePhoto] {
        let key = self.resultsKey(cell, window: window)
        return try await self.results.value(for: key) {
            try await self.shared.finding(
                key,
                read: { try? JSONDecoder().decode([CandidatePhoto].self, from: $0) },
                encode: { (try? JSONEncoder().encode($0)) ?? Data("[]".utf8) },
                isKeyRejection: self.search.isKeyRejection,
                onUnreadable: { self.logger.warning("a cell's shared results cannot be read: searching it here", metadata: ["cell": "\(cell)"]) },
                search: { shared in try await self.search.search(cell, shared: shared) }
            )
        }
    }

    /// Where a cell's results for `window` are kept and shared: the cell-window itself when they last a window; else the
    /// source's name with the cell, and the last window of their period (so that the shared row lives as long as the
    /// results serve).
    func resultsKey(_ cell: Geohash, window: TimeWindow) -> CellWindow {
        let period = Int64(max(self.search.resultsSeconds, window.seconds))
        guard period > Int64(window.seconds) else { return CellWindow(cell: cell.value, window: window.index) }
        let start = Int64(window.start.timeIntervalSince1970) / period * period
        return CellWindow(cell: "\(self.search.origin.rawValue)/\(cell.value)", window: (start + period) / Int64(window.seconds) - 1)
    }

    /// A cell's results ranked for the window, in a span saying the sky, how many, and the chosen one's score.
    private func rank(_ results: [CandidatePhoto], cell: Geohash, window: TimeWindow) async -> CellFinding {
        await withRequestSpan("photo.rank") { span in
            let ranked = CellFinding.choosing(from: results, cell: cell, window: window, deny: self.deny)
            span.attributes["backdrop.sun.phase"] = ranked.phase.group
            span.attributes["backdrop.photo.candidates"] = results.count
            if let score = ranked.score { span.attributes["backdrop.photo.score"] = score.map(String.init).joined(separator: ",") }
            return ranked.finding
        }
    }
}

extension NearbyPhotoSource.Lookup {
    init(_ result: NearbyPhotoSource.CellResult) {
        switch result {
        case .found(let finding): self = .found(finding)
        case .restored: self = .found(.empty)  // the restored photo proved unusable, and no search result is at hand
        }
    }
}
