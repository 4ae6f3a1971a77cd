import Foundation

/// What searching a cell found in one window: its candidates in the ranking's order, the chosen photo first (none:
/// nothing usable near the cell). `variant` N takes the N-th usable one; a photo that proves unusable gives its place
/// to the next. Replicas share it, so it is small, and the same in every replica.
package struct CellFinding: Sendable, Codable, Equatable {
    package let candidates: [SourcePhoto]

    package init(candidates: [SourcePhoto]) {
        self.candidates = candidates
    }

    package static let empty = CellFinding(candidates: [])

    /// Candidates kept: every variant and replacements beyond them.
    static let kept = PhotoVariants.limit + 6

    /// The choice among a search's results by ``PhotoRanking`` for the sky at the cell in the window's middle (the
    /// stable hash of cell and window picking among the best few), then the rest in the ranking's order; denied photos
    /// are dropped first. With it, the sky it was ranked for and the chosen photo's score, for the search's trace.
    package static func choosing(
        from results: [FlickrPhoto],
        cell: Geohash,
        window: TimeWindow,
        deny: PhotoDenylist
    ) -> (finding: CellFinding, phase: SunPhase, score: [Int]?) {
        let phase = SunPhase(cell: cell, window: window)
        let ranking = PhotoRanking(phase: phase)
        let all = results.map { RankingCandidate($0, near: cell) }
        let photos = results.indices.map { results[$0].sourcePhoto(shown: all[$0].shown, sky: phase) }
        let allowed = results.indices.filter { !deny.denies(photos[$0]) }
        let candidates = allowed.map { all[$0] }
        let order = ranking.choose(candidates, key: "\(cell.value)/\(window.index)")
        let finding = CellFinding(candidates: order.prefix(Self.kept).map { photos[allowed[$0]] })
        return (finding, phase, order.first.map { ranking.score(candidates[$0]) })
    }

    /// ``choosing(from:cell:window:deny:)``'s finding alone.
    init(choosingFrom results: [FlickrPhoto], cell: Geohash, window: TimeWindow, deny: PhotoDenylist = PhotoDenylist()) {
        self = Self.choosing(from: results, cell: cell, window: window, deny: deny).finding
    }

    /// The finding as replicas share it.
    var sharedJSON: Data {
        (try? JSONEncoder().encode(self)) ?? Data("{\"candidates\":[]}".utf8)
    }

    /// A finding another replica shared, without what `deny` names; nil if it cannot be read.
    init?(sharedJSON json: Data, deny: PhotoDenylist = PhotoDenylist()) {
        guard let finding = try? JSONDecoder().decode(CellFinding.self, from: json) else { return nil }
        self.candidates = deny.allowed(finding.candidates)
    }

    /// The photo for `variant`, passing over those that proved unusable; nil when none is left.
    func photo(variant: Int, excluding unusable: Set<String>) -> SourcePhoto? {
        PhotoVariants.pick(variant, from: unusable.isEmpty ? self.candidates : self.candidates.filter { !unusable.contains($0.id) })
    }
}
