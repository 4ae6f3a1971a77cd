import Foundation
import Tracing

extension NearbyPhotoSource {
    /// The cell's ranked choice for the window (empty: nothing usable), or nil when the source cannot be asked now (or
    /// `client`'s share of new searches is spent). A search stores the photo it leads to. Throws only
    /// `CancellationError`: a request that gave up (its deadline passed) gets its fallback from the deadline's path,
    /// counted once there.
    func lookup(_ cell: Geohash, key: CellWindow, window: TimeWindow, client: RequestClient) async throws -> CellChoice? {
        if let cached = await self.choices.cached(key) { return cached }
        guard await self.state.mayCall(key) else { return nil }
        let (name, logger) = (self.search.name, self.context.logger)
        do {
            let choice = try await self.choices.value(for: key) {
                let choice = await self.rank(try await self.results(cell, window: window, client: client).candidates, cell: cell, window: window)
                await self.store(choice, cell: cell, window: window)
                return choice
            }
            if await self.state.noteSuccess(for: key) { logger.notice("\(name) accepts the API key again") }
            return choice
        } catch {
            if Task.isCancelled { throw CancellationError() }
            if error is ClientShares.Spent { return nil }  // the client's share, not the source, says no
            let rejected = self.search.isKeyRejection(error) || (error as? SharedSearch.Refusal) == .keyRejectedElsewhere
            if let pause = self.search.sourcePause(after: error) { await self.state.pause(pause) }
            if await self.state.noteFailure(keyRejected: rejected, for: key) {
                logger.error("\(name) rejected the API key: serving fallback photos, retrying at most once a minute")
            } else if !rejected {
                logger.warning("\(name) search failed: serving a fallback photo", metadata: ["cell": "\(cell)", "error": "\(error)"])
            }
            return nil
        }
    }

    /// The cell's results for the period of `resultsSeconds` that holds `window`: from memory, from another replica,
    /// or this replica's own search with the looks already known (``CandidateLooks/known(_:previous:)``), shared with the
    /// others (whose results win if one published first, so that every replica ranks the same). The looks not yet known
    /// are fetched after the answer (``LateLooks``) by the replica that searched. A search's calls are charged to
    /// `client`'s share, one call reserved before the claim (given back when none was made); with the share spent, throws
    /// ``ClientShares/Spent``.
    func results(_ cell: Geohash, window: TimeWindow, client: RequestClient) async throws -> CellResults {
        let (key, store, logger) = (self.resultsKey(cell, window: window), self.context.store, self.context.logger)
        if let held = await self.results.cached(key), held.looksPending, await self.state.reread(key, in: window.index) {
            // Results waiting for looks are read again before a later window is ranked: another replica may have added them.
            if let shared = await self.amongReplicas.coordinator.sharing().read(key).flatMap(CellResults.read), !shared.looksPending {
                await self.results.insert(shared, for: key)
            }
        }
        let searched = Searched()
        let results = try await self.results.value(for: key) {
            // Kept on disk before a restart: no search, no claim.
            if let stored = await store?.storedResults(cell: key.cell, window: key.window), let results = CellResults.read(stored) {
                searched.note()  // this replica's own: if its looks had not come, they are fetched again
                return results
            }
            let sharing = self.amongReplicas.coordinator.sharing()
            guard let reservation = await self.callShares.reserve(client, through: sharing) else { throw ClientShares.Spent() }
            let search = { @Sendable () async throws -> CellResults in
                try await self.amongReplicas.results(
                    key,
                    read: CellResults.read,
                    encode: \.json,
                    isKeyRejection: self.search.isKeyRejection,
                    onUnreadable: { logger.warning("a cell's shared results cannot be read: searching it here", metadata: ["cell": "\(cell)"]) },
                    search: { shared in
                        let charged = ChargedSharing(inner: shared, shares: self.callShares, reservation: reservation)
                        let found = try await self.search.search(cell, shared: charged)
                        searched.note()
                        let (candidates, pending) = await self.looks.known(found, previous: await self.previousResults(key, window: window))
                        return CellResults(candidates: candidates, looksPending: pending)
                    }
                )
            }
            let results: CellResults
            do {
                results = try await search()
            } catch {
                await self.callShares.settle(reservation, through: sharing)  // given back if no call was made
                throw error
            }
            await self.callShares.settle(reservation, through: sharing)
            await store?.storeResults(results.json, cell: key.cell, window: key.window)
            return results
        }
        if results.looksPending, searched.happened { self.queueLooks(key, windowSeconds: window.seconds) }
        return results
    }

    /// Where a cell's results for `window` are kept and shared: the cell-window itself when they last a window; else the
    /// source's name with the cell, and the last window of their period (so that the shared row lives as long as the
    /// results serve).
    func resultsKey(_ cell: Geohash, window: TimeWindow) -> CellWindow {
        let period = Int64(max(self.search.resultsSeconds, window.seconds))
        guard period > Int64(window.seconds) else { return CellWindow(cell: cell.value, window: window.index) }
        let start = Int64(total: window.start.timeIntervalSince1970) / period * period
        return CellWindow(cell: "\(self.search.origin.rawValue)/\(cell.value)", window: (start + period) / Int64(window.seconds) - 1)
    }

    /// A cell's results ranked for the window, in a span saying the sky, how many, and the chosen one's score.
    func rank(_ results: [CandidatePhoto], cell: Geohash, window: TimeWindow) async -> CellChoice {
        await withRequestSpan("photo.rank") { span in
            let people = await self.state.people
            let ranked = CellChoice.ranking(
                results,
                cell: cell,
                window: window,
                deny: self.context.deny,
                keepOut: self.context.keepOut,
                people: people
            )
            span.attributes["backdrop.sun.phase"] = ranked.phase.group
            span.attributes["backdrop.photo.candidates"] = results.count
            for (shape, score) in ranked.scores {
                span.attributes["backdrop.photo.score.\(shape.rawValue)"] = score.map(String.init).joined(separator: ",")
            }
            return ranked.choice
        }
    }
}
