import Foundation
import Logging
import Tracing

/// Photos taken near a cell, from a source that searches by location (Flickr, Commons: ``NearbySearch``). It answers
/// only for itself: a photo, or nil when it cannot serve now (key rejected, budget spent, errors, timeouts, nothing
/// near, every candidate unusable); the ``PhotoLine`` then asks the next source.
///
/// A cell is searched once per `resultsSeconds` (a window for Flickr, a day for Commons): concurrent requests share the
/// search; with a shared database, every replica does (``SharedSearch``). Its results are ranked for each window's sky
/// (``CellChoice``), the same in every replica; `variant` N takes the N-th. With a photo store, a restart keeps the
/// window's chosen photo without a search. When the source fails, a cell's photo from an earlier window (younger than
/// the stale limit) is served, marked stale. Denied photos (``PhotoDenylist``) are never chosen.
struct NearbyPhotoSource: Sendable {
    /// What the source knows of a cell without asking anyone.
    enum Known {
        case photo(SourcePhoto)
        /// It cannot serve the cell this window (nothing near, every candidate unusable): the next source answers.
        case nothing
        /// Only a lookup can tell.
        case unknown
    }

    // The search: the source's own, made once among the replicas, and the looks of its candidates.
    let search: any NearbySearch
    /// One search of a cell-window among the replicas (claim, wait out a lease, publish; ``SharedSearch``).
    let amongReplicas: SharedSearch
    /// The looks of a search's candidates: those known at once, the others after the answer (``LateLooks``).
    let looks: CandidateLooks
    // What the source keeps: in memory, besides the photo store on disk (`context.store`).
    /// Each cell-window's ranked choice; a cell the source cannot be asked about now has none.
    let choices: MemoryLRU<CellWindow, CellChoice>
    /// Each cell's search results for their period (``resultsKey(_:window:)``).
    let results: MemoryLRU<CellWindow, CellResults>
    /// What it learned between requests besides results: a rejected key, failing cells, unusable photos, people.
    let state: SearchState
    // The budget: each client's share of the calls for new cells.
    let callShares: ClientShares
    // The downloads of the photos chosen.
    let downloads: PhotoDownloads
    /// What every source shares: the clock, metrics, photo store, denylist, stale limit.
    let context: PhotoContext

    /// A source searching with `search`, its images from `downloads`, its budget of `callsPerHour` calls through
    /// `coordinator`; its thumbnails for looks through `thumbnails` (the photos' downloader by default).
    init(
        search: any NearbySearch,
        downloads: PhotoDownloads,
        thumbnails: (any ImageDownloading)? = nil,
        coordinator: any ClusterCoordinator,
        callsPerHour: Int,
        context: PhotoContext
    ) {
        self.search = search
        self.downloads = downloads
        self.looks = CandidateLooks(downloader: thumbnails ?? downloads.downloader)
        self.amongReplicas = SharedSearch(coordinator: coordinator, clock: context.clock, metrics: context.metrics)
        self.context = context
        self.state = SearchState(clock: context.clock)
        self.callShares = ClientShares(budget: search.name, callsPerHour: callsPerHour, clock: context.clock)
        self.choices = MemoryLRU(budget: context.cellCacheEntries) { _ in 1 }
        self.results = MemoryLRU(budget: context.cellCacheEntries) { _ in 1 }
    }

    var origin: PhotoOrigin { self.search.origin }

    /// Photos found to show people for which a cell's window is ranked again.
    static let peopleRankings = 2

    /// The cell's photo for `window`, `variant` and a screen of `shape`, or nil when this source cannot serve it now; a
    /// search it needs is charged to `client`'s share. Throws only `CancellationError`.
    func photo(
        for cell: Geohash,
        in window: TimeWindow,
        variant: Int,
        shape: ScreenShape,
        client: RequestClient = .unknown
    ) async throws -> SourcePhoto? {
        let key = CellWindow(cell: cell.value, window: window.index)
        let unusable = await self.state.unusable(key)
        let people = await self.state.people
        let cached = await self.choices.cached(key)
        if let cached, !cached.answers(variant: variant, shape: shape, excluding: unusable) {
            await self.choices.remove(key)  // the restored photo failed, or another variant is asked: the results are needed
        } else if cached == nil, variant == 0, unusable.isEmpty, let restored = await self.restorable(cell, in: window, shape: shape, people: people)
        {
            await self.choices.insert(CellChoice.restored(restored, for: shape), for: key)
            return restored
        }
        if let choice = try await self.waitedLookup(cell, key: key, window: window, client: client) {
            return choice.photo(variant: variant, shape: shape, excluding: unusable).map { $0.showing(people: people) }
        }
        guard unusable.isEmpty, let stored = await self.standIn(cell, shape: shape) else { return nil }
        return self.stale(stored.photo.showing(people: people))
    }

    /// What the source knows of the cell's photo without any upstream call: lets a render already in memory be
    /// answered without arming the request's deadline.
    func knownPhoto(for cell: Geohash, in window: TimeWindow, variant: Int, shape: ScreenShape) async -> Known {
        let key = CellWindow(cell: cell.value, window: window.index)
        let unusable = await self.state.unusable(key)
        guard let choice = await self.choices.cached(key), choice.answers(variant: variant, shape: shape, excluding: unusable) else {
            return .unknown
        }
        let people = await self.state.people
        return choice.photo(variant: variant, shape: shape, excluding: unusable).map { Known.photo($0.showing(people: people)) } ?? .nothing
    }

    func imageData(for photo: SourcePhoto, covering size: PixelSize, client: RequestClient) async throws -> EncodedImage {
        try await self.downloads.imageData(for: photo, covering: size, client: client)
    }

    /// Records that `photo` could not be downloaded, decoded or passed the quality gate: the cell's next candidate
    /// takes its place for the rest of the window (and across a restart, when the results are at hand).
    func markUnusable(_ photo: SourcePhoto, cell: Geohash, window: TimeWindow) async {
        let key = CellWindow(cell: cell.value, window: window.index)
        await self.state.markUnusable(key, photoID: photo.id)
        if let choice = await self.choices.cached(key), !choice.restored { await self.store(choice, cell: cell, window: window) }
    }

    /// Keeps each class's first usable photo of `choice` as the cell's photo for `window` in the photo store, so that
    /// a restart or a failing source finds it.
    func store(_ choice: CellChoice, cell: Geohash, window: TimeWindow) async {
        guard let store = self.context.store else { return }
        let unusable = await self.state.unusable(CellWindow(cell: cell.value, window: window.index))
        for shape in ScreenShape.allCases {
            guard let chosen = choice.photo(variant: 0, shape: shape, excluding: unusable) else { continue }
            await store.storePhoto(chosen, cell: self.storeName(cell, shape: shape), window: window.index)
        }
    }

    /// Records that `photo`'s pixels show people though it was ranked as free of them: the cell's choice is ranked
    /// again, `photo` below the photos of the same sky without people (``PhotoRanking``), from this window on. The
    /// results at hand are ranked again at once, so that no call to the source is needed (it may be paused); without
    /// them (a restored photo) the next request looks the cell up. After ``peopleRankings`` such photos in a cell's
    /// window, the next one found keeps its place (it is served as it is, known to show people): a cell of portraits
    /// costs three downloads a window, not one a file.
    func markPeople(_ photo: SourcePhoto, cell: Geohash, window: TimeWindow) async {
        let key = CellWindow(cell: cell.value, window: window.index)
        guard await self.state.notePeople(photoID: photo.id, in: key) <= Self.peopleRankings else { return }
        guard let results = await self.results.cached(self.resultsKey(cell, window: window)) else {
            await self.choices.remove(key)
            return
        }
        let choice = await self.rank(results.candidates, cell: cell, window: window)
        await self.choices.insert(choice, for: key)
        await self.store(choice, cell: cell, window: window)
    }

    /// What to show when a request's deadline passed: this source's stored photo for the cell if its bytes are at hand
    /// (it must not wait on the source again), else nil. The deadline counts against this source only if the request
    /// was waiting on it: its lookup cut short, or its photo known (so downloading or rendering).
    func fallback(for cell: Geohash, in window: TimeWindow, variant: Int, shape: ScreenShape) async -> SourcePhoto? {
        let key = CellWindow(cell: cell.value, window: window.index)
        let interrupted = await self.state.takeInterruptedWait(key)
        let known = await self.knownPhoto(for: cell, in: window, variant: variant, shape: shape)
        let serving: Bool = if case .photo = known { true } else { false }
        if interrupted || serving { await self.state.noteTimeout(for: key, leaseUntil: await self.amongReplicas.leaseEnd(key)) }
        guard let stored = await self.standIn(cell, shape: shape), await self.context.store?.hasSourceImage(photoID: stored.photo.id) == true else {
            return nil
        }
        let photo = stored.photo.showing(people: await self.state.people)
        return stored.window == window.index && !photo.stale && variant == 0 ? photo : self.stale(photo)
    }

    /// ``lookup(_:key:window:)``, the request counted as waiting on it until it ends; a wait cut short (the request's
    /// task cancelled by its deadline) stays counted, so that the fallback knows this source was the one waited on.
    private func waitedLookup(_ cell: Geohash, key: CellWindow, window: TimeWindow, client: RequestClient) async throws -> CellChoice? {
        await self.state.beginWait(key)
        do {
            let choice = try await self.lookup(cell, key: key, window: window, client: client)
            await self.state.endWait(key)
            return choice
        } catch {
            if !Task.isCancelled { await self.state.endWait(key) }
            throw error
        }
    }

    /// The window's own choice for the cell as the photo store kept it (after a restart), when it may be served without
    /// a search: chosen in `window`, fresh, not denied since, and not found to show people.
    private func restorable(_ cell: Geohash, in window: TimeWindow, shape: ScreenShape, people: Set<String>) async -> SourcePhoto? {
        guard let stored = await self.storedPhoto(cell, shape: shape), stored.isRestorable(in: window, deny: self.context.deny),
            !people.contains(stored.photo.id)
        else { return nil }
        return stored.photo
    }

    private func storedPhoto(_ cell: Geohash, shape: ScreenShape) async -> StoredPhoto? {
        guard let stored = await self.context.store?.storedPhoto(cell: self.storeName(cell, shape: shape)), stored.photo.origin == self.origin
        else { return nil }
        return stored
    }

    /// The cell's stored photo from this source for `shape` (else for another class), if it may stand in while the
    /// source cannot serve.
    private func standIn(_ cell: Geohash, shape: ScreenShape) async -> StoredPhoto? {
        for candidate in [shape] + ScreenShape.allCases.filter({ $0 != shape }) {
            if let stored = await self.storedPhoto(cell, shape: candidate),
                stored.mayStandIn(at: self.context.clock.now(), maxStale: self.context.maxStale, deny: self.context.deny)
            {
                return stored
            }
        }
        return nil
    }

    /// `photo` marked stale, counted as such a fallback.
    private func stale(_ photo: SourcePhoto) -> SourcePhoto {
        self.context.metrics.fallback("stale")
        var photo = photo
        photo.stale = true
        return photo
    }

    /// The name the photo store keeps this source's photo for `cell` and `shape` under: each source in line keeps its
    /// own, so that a photo one serves while another fails does not overwrite the other's stale stand-in (a portrait's
    /// name is the one kept before classes, whose stored photos were ranked for portraits).
    /// The list that kept things out names it too: a photo chosen under another list (a word added to `photos.keepOut`
    /// since) is neither restored nor stands in, since a stored photo keeps no categories to match again.
    func storeName(_ cell: Geohash, shape: ScreenShape) -> String {
        let name = shape == .portrait ? "\(self.origin.rawValue)/\(cell.value)" : "\(self.origin.rawValue)/\(cell.value)/\(shape.rawValue)"
        return name + "@" + self.context.keepOut.digest
    }
}
