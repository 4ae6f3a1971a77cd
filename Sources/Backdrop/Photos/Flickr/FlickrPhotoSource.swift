import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Tracing

/// Photos taken near the place, from Flickr, with the stock photos standing in whenever Flickr cannot serve:
/// no location, key rejected, quota spent, errors, timeouts, empty results, or photos that fail to download or decode.
///
/// A cell is searched once per window (concurrent requests share the search; with a photo store, a restart too; with
/// a shared database, every replica: see ``ClusterCoordinator``). Its photo is picked from the usable results by a
/// stable hash of cell and window (``CellFinding``). When Flickr fails, a cell's photo from an earlier window (younger
/// than `maxStale`) is served, marked stale, before stock.
package struct FlickrPhotoSource: PhotoSource {
    /// A cell's search result for one window.
    enum CellResult: Sendable {
        /// What this replica's search or another's found.
        case found(CellFinding)
        /// The photo chosen earlier in the window, read back from the store after a restart (no search made).
        case restored(SourcePhoto)
    }

    /// What asking about a cell gave.
    enum Lookup {
        case found(CellFinding)
        case unavailable
    }

    let settings: Settings.Flickr
    let searcher: any FlickrSearching
    let downloader: any ImageDownloading
    let stock: StockPhotoSource
    let store: (any PhotoStore)?
    let maxStale: TimeInterval
    let coordinator: any ClusterCoordinator
    let clock: any WallClock
    let logger: Logger
    let metrics: BackdropMetrics
    let state: FlickrState
    let cells: MemoryLRU<CellWindow, CellResult>
    let downloads: MemoryLRU<String, [UInt8]>

    init(
        settings: Settings.Flickr,
        searcher: any FlickrSearching,
        downloader: any ImageDownloading,
        stock: StockPhotoSource,
        store: (any PhotoStore)? = nil,
        maxStale: TimeInterval = 24 * 3600,
        coordinator: (any ClusterCoordinator)? = nil,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics = BackdropMetrics()
    ) {
        self.settings = settings
        self.searcher = searcher
        self.downloader = downloader
        self.stock = stock
        self.store = store
        self.maxStale = maxStale
        self.coordinator = coordinator ?? LocalCoordinator(callsPerHour: settings.callsPerHour, clock: clock, metrics: metrics)
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.state = FlickrState(clock: clock)
        self.cells = MemoryLRU(budget: settings.cellCacheEntries) { _ in 1 }
        self.downloads = MemoryLRU(budget: settings.downloadCacheMB << 20, maxEntries: 4096) { $0.count + 256 }
    }

    package func photo(for place: Place, in window: TimeWindow) async throws -> SourcePhoto {
        guard case .cell(let cell) = place else { return try await self.stock.photo(for: place, in: window) }
        let key = CellWindow(cell: cell.value, window: window.index)
        let skipped = await self.state.unusableCount(key)
        let cached = await self.cells.cached(key)
        if case .restored(let photo)? = cached {
            if skipped == 0 { return photo }
            await self.cells.remove(key)  // the restored photo failed: the cell needs its search results
        } else if cached == nil, skipped == 0, let stored = await self.store?.storedPhoto(cell: cell.value),
            stored.window == window.index, stored.photo.origin == .flickr, !stored.photo.stale
        {
            await self.cells.insert(.restored(stored.photo), for: key)
            return stored.photo
        }
        switch try await self.lookup(cell, key: key, window: window) {
        case .found(let finding):
            guard let photo = finding.photo(skipped: skipped) else { return try await self.stockFallback(place, window) }
            return photo
        case .unavailable:
            if skipped == 0, let stored = await self.standIn(cell) {
                return self.stale(stored.photo)
            }
            return try await self.stockFallback(place, window)
        }
    }

    /// The cell's stored Flickr photo, if it is young enough (`maxStale`) to stand in while Flickr cannot serve.
    private func standIn(_ cell: Geohash) async -> StoredPhoto? {
        guard let stored = await self.store?.storedPhoto(cell: cell.value), stored.photo.origin == .flickr,
            self.clock.now().timeIntervalSince(stored.created) <= self.maxStale
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

    package func knownPhoto(for place: Place, in window: TimeWindow) async -> SourcePhoto? {
        guard case .cell(let cell) = place else { return await self.stock.knownPhoto(for: place, in: window) }
        let key = CellWindow(cell: cell.value, window: window.index)
        guard await self.state.unusableCount(key) == 0 else { return nil }
        switch await self.cells.cached(key) {
        case .restored(let photo)?: return photo
        case .found(let finding)?: return finding.photo(skipped: 0)
        case nil: return nil  // unknown: the full path decides (stock, stale, or a search)
        }
    }

    package func imageData(for photo: SourcePhoto, covering size: PixelSize) async throws -> EncodedImage {
        guard photo.origin == .flickr else { return try await self.stock.imageData(for: photo, covering: size) }
        guard let variant = photo.size(covering: size) else { throw DownloadError(.failed, "photo \(photo.id) has no sizes") }
        if let bytes = await self.store?.sourceImage(photoID: photo.id, variant: variant.label) {
            self.metrics.cache(.hit, kind: "source")
            return EncodedImage(bytes: bytes, variant: variant.label)
        }
        // A stale photo stands in because Flickr is failing: any stored size beats another wait on it.
        if photo.stale, let bytes = await self.store?.sourceImage(photoID: photo.id, variant: nil) {
            return EncodedImage(bytes: bytes, variant: "stored")
        }
        let (downloader, store) = (self.downloader, self.store)
        do {
            let bytes = try await self.downloads.value(for: variant.url) {
                let bytes = try await withRequestSpan("flickr.download") { span in
                    span.attributes["backdrop.photo.size"] = variant.label
                    span.attributes["server.address"] = URL(string: variant.url)?.host ?? ""
                    let bytes = try await downloader.download(variant.url)
                    span.attributes["backdrop.bytes"] = bytes.count
                    return bytes
                }
                await store?.storeSourceImage(bytes, photoID: photo.id, variant: variant.label)
                return bytes
            }
            return EncodedImage(bytes: bytes, variant: variant.label)
        } catch {
            // A stale photo may have a stored size other than the one asked for: better than nothing.
            if photo.stale, let bytes = await self.store?.sourceImage(photoID: photo.id, variant: nil) {
                return EncodedImage(bytes: bytes, variant: "stored")
            }
            throw error
        }
    }

    package func markUnusable(_ photo: SourcePhoto, place: Place, window: TimeWindow) async {
        guard photo.origin == .flickr, case .cell(let cell) = place else { return }
        let key = CellWindow(cell: cell.value, window: window.index)
        await self.state.markUnusable(key)
        // Remember the replacement across restarts too (when the results are at hand; otherwise the next search does).
        if case .found(let finding)? = await self.cells.cached(key),
            let next = finding.photo(skipped: await self.state.unusableCount(key))
        {
            await self.store?.storePhoto(next, cell: cell.value, window: window.index)
        }
    }

    package func fallback(for place: Place, in window: TimeWindow) async throws -> SourcePhoto {
        guard case .cell(let cell) = place else { return try await self.stock.photo(for: place, in: window) }
        await self.state.noteTimeout(for: CellWindow(cell: cell.value, window: window.index))
        // Only a photo whose bytes are at hand: the fallback must not wait on Flickr again.
        if let stored = await self.standIn(cell), await self.store?.hasSourceImage(photoID: stored.photo.id) == true {
            return stored.window == window.index && !stored.photo.stale ? stored.photo : self.stale(stored.photo)
        }
        return try await self.stockFallback(place, window)
    }

    private func stockFallback(_ place: Place, _ window: TimeWindow) async throws -> SourcePhoto {
        self.metrics.fallback("stock")
        return try await self.stock.photo(for: place, in: window)
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
                if let chosen = finding.photo(skipped: await self.state.unusableCount(key)) {
                    await self.store?.storePhoto(chosen, cell: cell.value, window: window.index)
                }
                return CellResult.found(finding)
            }
            if await self.state.noteSuccess(for: key) { self.logger.notice("Flickr accepts the API key again") }
            return Lookup(result)
        } catch let error as FlickrError {
            if Task.isCancelled { throw CancellationError() }
            if await self.state.noteFailure(error, for: key) {
                self.logger.error("Flickr rejected the API key: serving stock photos, retrying at most once a minute")
            } else if error.kind != .invalidKey {
                self.logger.warning("Flickr search failed: serving a fallback photo", metadata: ["cell": "\(cell)", "error": "\(error)"])
            }
            return .unavailable
        } catch {
            if Task.isCancelled { throw CancellationError() }
            self.logger.warning("Flickr search failed: serving a fallback photo", metadata: ["cell": "\(cell)", "error": "\(error)"])
            return .unavailable
        }
    }

    /// What the cell holds for the window: another replica's finding, or this replica's own search, shared with the
    /// others (whose finding wins if one published first, so that every replica serves the same photo).
    private func find(_ cell: Geohash, key: CellWindow, window: TimeWindow) async throws -> CellFinding {
        let shared = self.coordinator.sharing()
        let claim = try await withRequestSpan("cluster.claim") { span in
            span.attributes["backdrop.cell"] = key.cell
            let claim = try await self.claim(key, shared)
            span.attributes["backdrop.outcome"] = claim.label
            return claim
        }
        switch claim {
        case .found(let json):
            if let finding = CellFinding(sharedJSON: json) { return finding }
            self.logger.warning("a cell's shared result cannot be read: searching it here", metadata: ["cell": "\(key.cell)"])
        case .failing:
            throw FlickrError(.transient, "another replica's search of this cell failed moments ago")
        case .keyRejected:
            throw FlickrError(.invalidKey, "another replica had the API key rejected moments ago")
        case .search, .wait:  // claim(_:_:) waits out every .wait itself
            break
        }
        do {
            let photos = try await self.search(cell, shared)
            let finding = CellFinding(choosingFrom: photos, cell: cell, window: window)
            return CellFinding(sharedJSON: await shared.publish(finding.sharedJSON, for: key)) ?? finding
        } catch let error as FlickrError where error.kind == .invalidKey {
            await shared.publishKeyRejected(retryAfter: FlickrState.keyRetryInterval)
            throw error
        } catch {
            if !(error is CancellationError) && !Task.isCancelled {
                await shared.publishFailure(for: key, backoff: FlickrState.failureBackoff)
            }
            throw error
        }
    }

    /// The first pause between looks at a cell-window whose lease another replica holds; it grows to ``longestPause``.
    static let firstPause: Duration = .milliseconds(10)
    static let longestPause: Duration = .milliseconds(200)

    /// The coordinator's answer for the cell-window, looking again while another replica holds its lease (until this
    /// request's deadline cancels the wait). Each wait is noted, so that a request that gives up on the lease leaves
    /// the cell alone until the lease ends and no longer (``FlickrState/noteTimeout(for:)``).
    private func claim(_ key: CellWindow, _ shared: any CellSharing) async throws -> CellClaim {
        var pause = Self.firstPause
        var leaseUntil: Date?
        while true {
            let claim = try await shared.claim(key)
            let now = self.clock.now()
            if case .search = claim, let until = leaseUntil, now < until {
                // The database granted no claim before the lease it reported ends: this is the replica going on alone
                // (the request's allowance of database time is spent, or the database is gone). Another replica's
                // lease is still honoured: wait it out, then search alone.
                try await Task.sleep(for: min(pause, .milliseconds(Int64(max(1, until.timeIntervalSince(now) * 1000)))))
                pause = min(pause * 2, Self.longestPause)
                continue
            }
            guard case .wait(let seconds) = claim else {
                // A wait on another replica's lease (by this request or an earlier one that gave up) ends here.
                if let since = await self.state.endLeaseWait(key) {
                    let waited = Duration.milliseconds(Int64(max(0, now.timeIntervalSince(since)) * 1000))
                    if case .search = claim { self.metrics.clusterLeaseWait("took_over", waited) }
                    if case .found = claim { self.metrics.clusterLeaseWait("shared", waited) }
                }
                return claim
            }
            leaseUntil = now.addingTimeInterval(seconds)
            await self.state.noteLeaseElsewhere(key, until: now.addingTimeInterval(seconds))
            try await Task.sleep(for: min(pause, .milliseconds(Int64(max(1, seconds * 1000)))))
            pause = min(pause * 2, Self.longestPause)
        }
    }

    /// Searches around the cell's centre; with no usable result widens the radius up to 32 km, then drops the tags.
    /// Each call is taken from the key's budget (shared between replicas when they share a database).
    private func search(_ cell: Geohash, _ shared: any CellSharing) async throws -> [FlickrPhoto] {
        let centre = cell.centre
        let minUploadDate = Int64(self.clock.now().timeIntervalSince1970) - Int64(self.settings.minUploadAgeDays) * 86400
        var steps = [(self.settings.radiusKm, self.settings.tags)]
        for radius in [min(32, self.settings.radiusKm * 2), 32] where radius > steps[steps.count - 1].0 {
            steps.append((radius, self.settings.tags))
        }
        if !self.settings.tags.isEmpty { steps.append((32, "")) }
        for (step, (radius, tags)) in steps.enumerated() {
            // One span per call: its widening step and radius, whether the budget granted it, what it found. Never
            // the key, the query or the coordinates.
            let photos = try await withRequestSpan("flickr.search") { span in
                span.attributes["backdrop.cell"] = cell.value
                span.attributes["backdrop.search.step"] = step + 1
                span.attributes["backdrop.search.radius_km"] = radius
                span.attributes["backdrop.search.tags"] = !tags.isEmpty
                guard await shared.takeCall() else {
                    self.metrics.flickrCall("quota")
                    span.attributes["backdrop.outcome"] = "quota"
                    throw FlickrError(.transient, "Flickr call budget is spent for now")
                }
                let query = FlickrSearchQuery(
                    latitude: centre.latitude,
                    longitude: centre.longitude,
                    radiusKm: radius,
                    tags: tags,
                    licenses: self.settings.licenses,
                    minUploadDate: minUploadDate
                )
                let response: FlickrSearchResponse
                do {
                    response = try await self.searcher.search(query)
                } catch let error as FlickrError {
                    self.metrics.flickrCall(error.metricLabel)
                    span.attributes["backdrop.outcome"] = error.metricLabel
                    throw error
                }
                self.metrics.flickrCall(response.photos.isEmpty ? "empty" : "ok")
                span.attributes["backdrop.outcome"] = response.photos.isEmpty ? "empty" : "ok"
                span.attributes["backdrop.search.results"] = response.photos.count
                return response.photos
            }
            if !photos.isEmpty { return photos }
        }
        return []
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

extension FlickrError {
    var metricLabel: String {
        switch self.kind {
        case .invalidKey: "invalid_key"
        case .transient: "transient"
        case .malformed: "malformed"
        case .failed: "failed"
        }
    }
}

extension FlickrPhotoSource {
    /// The production source: Flickr's REST API and image hosts through `http`, with the configured limits.
    static func make(
        settings: Settings,
        http: HTTPClient,
        stock: StockPhotoSource,
        store: (any PhotoStore)?,
        coordinator: any ClusterCoordinator,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics
    ) -> FlickrPhotoSource {
        let total = TimeAmount.milliseconds(Int64(settings.flickr.totalTimeoutSeconds * 1000))
        return FlickrPhotoSource(
            settings: settings.flickr,
            searcher: FlickrRESTClient(
                http: http,
                endpoint: settings.flickr.endpoint,
                apiKey: settings.flickr.apiKey,
                timeout: total,
                allowedLicenses: settings.flickr.allowedLicenses
            ),
            downloader: ImageDownloader(
                http: http,
                policy: ImageHostPolicy(extraHosts: settings.flickr.extraImageHosts),
                maxBytes: settings.flickr.maxDownloadMB << 20,
                timeout: total
            ),
            stock: stock,
            store: store,
            maxStale: TimeInterval(settings.cache.maxStaleHours * 3600),
            coordinator: coordinator,
            clock: clock,
            logger: logger,
            metrics: metrics
        )
    }
}
