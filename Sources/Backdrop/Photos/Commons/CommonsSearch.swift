import Foundation
import Tracing

/// How Wikimedia Commons is searched (``NearbySearch``), with no key: a geosearch of its files around the cell's
/// centre, widening up to Commons' 10 km, once a day per cell (Commons changes slowly), each call taken from
/// `commons.callsPerHour`.
struct CommonsSearch: NearbySearch {
    let client: CommonsClient
    let radiusKm: Double
    let metrics: BackdropMetrics

    var origin: PhotoOrigin { .commons }
    var name: String { "Commons" }
    var resultsSeconds: Int { 86400 }

    func isKeyRejection(_ error: any Error) -> Bool { false }

    func sourcePause(after error: any Error) -> Double? { (error as? CommonsError)?.sourcePause }

    /// The radii tried in turn, in metres: the configured one, then wider, up to 10 km.
    var radii: [Int] {
        let first = Int((self.radiusKm * 1000).rounded())
        return ([first, first * 3, CommonsSearchQuery.maxRadiusMetres].map { min($0, CommonsSearchQuery.maxRadiusMetres) })
            .reduce(into: [Int]()) { steps, radius in if radius > (steps.last ?? 0) { steps.append(radius) } }
    }

    func search(_ cell: Geohash, shared: any CellSharing) async throws -> [CandidatePhoto] {
        let centre = cell.centre
        for (step, radius) in self.radii.enumerated() {
            // One span per call, as for Flickr: its step and radius, the budget's answer, what it found; never coordinates.
            let found = try await withRequestSpan("commons.search") { span in
                span.attributes["backdrop.cell"] = cell.value
                span.attributes["backdrop.search.step"] = step + 1
                span.attributes["backdrop.search.radius_km"] = Double(radius) / 1000
                guard await shared.takeCall() else {
                    self.metrics.sourceCall("commons", "quota")
                    span.attributes["backdrop.outcome"] = "quota"
                    throw CommonsError(.transient, "the Commons call budget is spent for now")
                }
                let query = CommonsSearchQuery(latitude: centre.latitude, longitude: centre.longitude, radiusMetres: radius)
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
            if !found.isEmpty { return found }
        }
        return []
    }
}
