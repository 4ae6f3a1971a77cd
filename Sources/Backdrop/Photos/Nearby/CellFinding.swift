import Foundation

/// What a cell holds for one window: its candidates in the ranking's order for the window's sky, the chosen photo
/// first (none: nothing usable near the cell). `variant` N takes the N-th usable one; a photo that proves unusable
/// gives its place to the next. The same in every replica, since the ranking is.
package struct CellFinding: Sendable, Codable, Equatable {
    package let candidates: [SourcePhoto]

    package init(candidates: [SourcePhoto]) {
        self.candidates = candidates
    }

    package static let empty = CellFinding(candidates: [])

    /// Candidates kept: every variant and replacements beyond them.
    static let kept = PhotoVariants.limit + 6

    /// The choice among a cell's results by ``PhotoRanking`` for the sky at the cell in the window's middle (the
    /// stable hash of cell and window picking among the best few), then the rest in the ranking's order; denied photos
    /// are dropped first. With it, the sky it was ranked for and the chosen photo's score, for the search's trace.
    package static func choosing(
        from results: [CandidatePhoto],
        cell: Geohash,
        window: TimeWindow,
        deny: PhotoDenylist
    ) -> (finding: CellFinding, phase: SunPhase, score: [Int]?) {
        let phase = SunPhase(cell: cell, window: window)
        let ranking = PhotoRanking(phase: phase)
        let allowed = deny.isEmpty ? results : results.filter { !deny.denies($0.photo) }
        let order = ranking.choose(allowed.map(\.facts), key: "\(cell.value)/\(window.index)")
        let finding = CellFinding(candidates: order.prefix(Self.kept).map { allowed[$0].photo.chosen(for: phase) })
        return (finding, phase, order.first.map { ranking.score(allowed[$0].facts) })
    }

    /// ``choosing(from:cell:window:deny:)``'s finding alone.
    init(choosingFrom results: [CandidatePhoto], cell: Geohash, window: TimeWindow, deny: PhotoDenylist = PhotoDenylist()) {
        self = Self.choosing(from: results, cell: cell, window: window, deny: deny).finding
    }

    /// The photo for `variant`, passing over those that proved unusable; nil when none is left.
    func photo(variant: Int, excluding unusable: Set<String>) -> SourcePhoto? {
        PhotoVariants.pick(variant, from: unusable.isEmpty ? self.candidates : self.candidates.filter { !unusable.contains($0.id) })
    }
}
