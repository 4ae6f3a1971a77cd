import Foundation
import Tracing

/// How Wikimedia Commons is searched (``NearbySearch``), with no key, once a day per cell (Commons changes slowly), each
/// call taken from `commons.callsPerHour`:
/// 1. the assessed files (featured, quality, valued) within the cell's reach: its farthest corner plus a kilometre, at
///    most `radiusKm` (``CommonsSearchQuery/Kind/assessed``). A famous place has them, and at ``enough`` the search
///    ends here: one call;
/// 2. else, beside each other: the assessed files within `radiusKm` (skipped when the reach is already that), and the
///    files nearest the cell's centre within `radiusKm` (``CommonsSearchQuery/Kind/nearest``), so that a remote place
///    still has photos: three calls at most, two round trips.
/// The candidates are the first call's, then the second's, then the nearest, each once.
struct CommonsSearch: NearbySearch {
    let client: CommonsClient
    let radiusKm: Double
    let metrics: BackdropMetrics

    var origin: PhotoOrigin { .commons }
    var name: String { "Commons" }
    var resultsSeconds: Int { 86400 }

    /// Usable assessed files at which a cell's search ends with its first call: two windows' pools of
    /// ``PhotoRanking/fewestScenes`` scenes.
    static let enough = 2 * PhotoRanking.fewestScenes
    /// How far beyond the cell's farthest corner its assessed files are searched, in metres: a landmark a user at the
    /// cell's edge sees.
    static let beyondCell = 1000.0

    func isKeyRejection(_ error: any Error) -> Bool { false }

    func sourcePause(after error: any Error) -> Double? { (error as? CommonsError)?.sourcePause }

    func search(_ cell: Geohash, shared: any CellSharing) async throws -> [CandidatePhoto] {
        let widest = Int(total: (self.radiusKm * 1000).rounded())
        let reach = min(widest, Int(total: (cell.reachMetres + Self.beyondCell).rounded(.up)))
        let first = try await self.call(.assessed, radius: reach, step: 1, cell: cell, shared: shared)
        guard first.count < Self.enough else { return first }
        async let wider: Result<[CandidatePhoto], any Error> =
            reach < widest ? self.tolerantCall(.assessed, radius: widest, step: 2, cell: cell, shared: shared) : .success([])
        async let nearest = self.tolerantCall(.nearest, radius: widest, step: 3, cell: cell, shared: shared)
        let (more, near) = await (wider, nearest)
        var seen = Set<String>()
        var merged = [CandidatePhoto]()
        for candidate in [first, (try? more.get()) ?? [], (try? near.get()) ?? []].joined() where seen.insert(candidate.photo.id).inserted {
            var candidate = candidate
            candidate.facts.order = merged.count
            merged.append(candidate)
        }
        // Nothing at all: a later call's failure is the cell's error, as a single call's would be.
        for result in [near, more] where merged.isEmpty {
            if case .failure(let error) = result { throw error }
        }
        return merged
    }

    /// One call whose failure is kept to weigh against what the others found.
    private func tolerantCall(
        _ kind: CommonsSearchQuery.Kind,
        radius: Int,
        step: Int,
        cell: Geohash,
        shared: any CellSharing
    ) async -> Result<[CandidatePhoto], any Error> {
        do {
            return .success(try await self.call(kind, radius: radius, step: step, cell: cell, shared: shared))
        } catch {
            return .failure(error)
        }
    }

    private func call(
        _ kind: CommonsSearchQuery.Kind,
        radius: Int,
        step: Int,
        cell: Geohash,
        shared: any CellSharing
    ) async throws
        -> [CandidatePhoto]
    {
        let centre = cell.centre
        // One span per call, as for Flickr: its kind, radius, the budget's answer, what it found; never coordinates.
        return try await withRequestSpan("commons.search") { span in
            span.attributes["backdrop.cell"] = cell.value
            span.attributes["backdrop.search.step"] = step
            span.attributes["backdrop.search.kind"] = kind.rawValue
            span.attributes["backdrop.search.radius_km"] = Double(radius) / 1000
            guard await shared.takeCall() else {
                self.metrics.sourceCall("commons", "quota")
                span.attributes["backdrop.outcome"] = "quota"
                throw CommonsError(.transient, "the Commons call budget is spent for now")
            }
            let query = CommonsSearchQuery(kind: kind, latitude: centre.latitude, longitude: centre.longitude, radiusMetres: radius)
            do {
                let found = try await self.client.search(query, near: cell)
                self.metrics.sourceCall("commons", found.isEmpty ? "empty" : "ok")
                span.attributes["backdrop.outcome"] = found.isEmpty ? "empty" : "ok"
                span.attributes["backdrop.search.results"] = found.count
                return found
            } catch let error as CommonsError {
                self.metrics.sourceCall("commons", error.kind.rawValue)
                span.attributes["backdrop.outcome"] = error.kind.rawValue
                throw error
            }
        }
    }
}
