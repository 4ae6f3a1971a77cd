import Foundation
import Synchronization

extension NearbyPhotoSource {
    /// Fetches, after the answer, the looks the results held under `key` still wait for (``LateLooks``).
    func queueLooks(_ key: CellWindow, windowSeconds: Int) {
        if !self.context.lateLooks.enqueue({ await self.addLooks(key, windowSeconds: windowSeconds) }) {
            self.context.logger.debug("the queue of late looks is full: the cell ranks without them", metadata: ["cell": "\(key.cell)"])
        }
    }

    /// The looks of the results held under `key` that can take a turn and have none, fetched now and counted from the
    /// first window that starts at least ``CellResults/lookMargin`` later; published to the cluster (the first replica's
    /// looks win), kept in memory and on disk.
    func addLooks(_ key: CellWindow, windowSeconds: Int) async {
        guard var results = await self.heldResults(key), results.looksPending else { return }
        let looks = await self.looks.missing(results.candidates)
        let from = CellResults.looksCount(from: self.context.clock.now(), windowSeconds: windowSeconds)
        for (index, reading) in looks {
            results.candidates[index].facts.look = reading.look
            results.candidates[index].facts.interest = reading.interest
            results.candidates[index].facts.lookFrom = from
        }
        results.looksPending = false
        if let shared = await self.amongReplicas.coordinator.sharing().publishLooks(results.json, for: key).flatMap(CellResults.read) {
            results = shared
        }
        await self.results.insert(results, for: key)
        await self.context.store?.storeResults(results.json, cell: key.cell, window: key.window)
    }

    /// The cell's results of the period before `key`'s (in memory, else on disk), whose looks a search keeps: a photo's
    /// look does not change.
    func previousResults(_ key: CellWindow, window: TimeWindow) async -> [CandidatePhoto] {
        let windows = Int64(max(1, self.search.resultsSeconds / window.seconds))
        return await self.heldResults(CellWindow(cell: key.cell, window: key.window - windows))?.candidates ?? []
    }

    /// The results held under `key`: in memory, else on disk.
    private func heldResults(_ key: CellWindow) async -> CellResults? {
        if let held = await self.results.cached(key) { return held }
        guard let stored = await self.context.store?.storedResults(cell: key.cell, window: key.window) else { return nil }
        return CellResults.read(stored)
    }
}

/// Whether a lookup searched (or took its own results from disk): set inside the lookup, read after it.
final class Searched: Sendable {
    private let flag = Mutex(false)

    func note() { self.flag.withLock { $0 = true } }

    var happened: Bool { self.flag.withLock { $0 } }
}
