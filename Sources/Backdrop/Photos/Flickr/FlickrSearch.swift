import Foundation
import Tracing

/// How Flickr is searched (``NearbySearch``): `flickr.photos.search` around the cell's centre, once per window.
struct FlickrSearch: NearbySearch {
    let settings: Settings.Flickr
    let searcher: any FlickrSearching
    let windowSeconds: Int
    let clock: any WallClock
    let metrics: BackdropMetrics
    /// What is left out by its tags.
    var keepOut = KeptOut()

    var origin: PhotoOrigin { .flickr }
    var name: String { "Flickr" }
    var resultsSeconds: Int { self.windowSeconds }

    func isKeyRejection(_ error: any Error) -> Bool { (error as? FlickrError)?.kind == .invalidKey }

    func search(_ cell: Geohash, shared: any CellSharing) async throws -> [CandidatePhoto] {
        try await self.photos(cell, shared).filter { self.keepOut.reason(tags: $0.facts.tags) == nil }.map { CandidatePhoto($0, near: cell) }
    }

    /// Searches around the cell's centre; with no usable result widens the radius up to 32 km, then drops the tags.
    /// Each call is taken from the key's budget (shared between replicas when they share a database).
    func photos(_ cell: Geohash, _ shared: any CellSharing) async throws -> [FlickrPhoto] {
        let centre = cell.centre
        let minUploadDate = Int64(total: self.clock.now().timeIntervalSince1970) - Int64(self.settings.minUploadAgeDays) * 86400
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
                    self.metrics.sourceCall("flickr", "quota")
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
                    self.metrics.sourceCall("flickr", error.metricLabel)
                    span.attributes["backdrop.outcome"] = error.metricLabel
                    throw error
                }
                self.metrics.sourceCall("flickr", response.photos.isEmpty ? "empty" : "ok")
                span.attributes["backdrop.outcome"] = response.photos.isEmpty ? "empty" : "ok"
                span.attributes["backdrop.search.results"] = response.photos.count
                return response.photos
            }
            if !photos.isEmpty { return photos }
        }
        return []
    }
}
