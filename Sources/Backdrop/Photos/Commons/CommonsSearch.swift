import Foundation
import Tracing

/// How Wikimedia Commons is searched (``NearbySearch``), with no key: one geosearch of its files within `radiusKm` of
/// the cell's centre (10 km, Commons' limit, by default), nearest first, once a day per cell (Commons changes slowly),
/// taken from `commons.callsPerHour`. One call with the widest radius gives the same nearest files as widening in
/// steps, for a third of the calls on an empty cell.
struct CommonsSearch: NearbySearch {
    let client: CommonsClient
    let radiusKm: Double
    let metrics: BackdropMetrics

    var origin: PhotoOrigin { .commons }
    var name: String { "Commons" }
    var resultsSeconds: Int { 86400 }

    func isKeyRejection(_ error: any Error) -> Bool { false }

    func sourcePause(after error: any Error) -> Double? { (error as? CommonsError)?.sourcePause }

    func search(_ cell: Geohash, shared: any CellSharing) async throws -> [CandidatePhoto] {
        let centre = cell.centre
        let radius = Int(total: (self.radiusKm * 1000).rounded())
        // One span per call, as for Flickr: its radius, the budget's answer, what it found; never coordinates.
        return try await withRequestSpan("commons.search") { span in
            span.attributes["backdrop.cell"] = cell.value
            span.attributes["backdrop.search.step"] = 1
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
    }
}
