import Foundation

/// The window's ranked choice for a cell: the search's candidates in the ranking's order for the window's sky, the
/// chosen photo first (none: nothing usable near the cell). `variant` N takes the N-th usable one; a photo that proves
/// unusable gives its place to the next. The same in every replica, since the ranking is.
package struct CellChoice: Sendable, Equatable {
    package let candidates: [SourcePhoto]
    /// Read back from the photo store after a restart: the window's chosen photo alone, with no search results behind
    /// it (so it answers variant 0 only, and only while it has not failed).
    let restored: Bool

    package init(candidates: [SourcePhoto], restored: Bool = false) {
        self.candidates = candidates
        self.restored = restored
    }

    package static let empty = CellChoice(candidates: [])

    /// Candidates kept: every variant and replacements beyond them.
    static let kept = PhotoVariants.limit + 6

    /// The choice among a search's candidates by ``PhotoRanking`` for the sky at the cell in the window's middle (the
    /// stable hash of cell and window picking among the best few), then the rest in the ranking's order; denied photos
    /// are dropped first, and the photos in `people` (whose pixels showed people) ranked as showing people. With it,
    /// the sky it was ranked for and the chosen photo's score, for the search's trace.
    package static func ranking(
        _ results: [CandidatePhoto],
        cell: Geohash,
        window: TimeWindow,
        deny: PhotoDenylist,
        people: Set<String> = []
    ) -> (choice: CellChoice, phase: SunPhase, score: [Int]?) {
        let phase = SunPhase(cell: cell, window: window)
        let ranking = PhotoRanking(phase: phase)
        let allowed = deny.isEmpty ? results : results.filter { !deny.denies($0.photo) }
        let facts = allowed.map { candidate in
            var facts = candidate.facts
            if people.contains(candidate.photo.id) { facts.people = true }
            return facts
        }
        let order = ranking.choose(facts, key: "\(cell.value)/\(window.index)")
        let choice = CellChoice(candidates: order.prefix(Self.kept).map { allowed[$0].photo.chosen(for: phase) })
        return (choice, phase, order.first.map { ranking.score(facts[$0]) })
    }

    /// Whether the choice can answer `variant` with `unusable` photos passed over: a restored photo answers only
    /// variant 0 while it has not failed (otherwise the search results are needed).
    func answers(variant: Int, excluding unusable: Set<String>) -> Bool {
        !self.restored || (variant == 0 && unusable.isEmpty)
    }

    /// The photo for `variant`, passing over those that proved unusable; nil when none is left.
    func photo(variant: Int, excluding unusable: Set<String>) -> SourcePhoto? {
        PhotoVariants.pick(variant, from: unusable.isEmpty ? self.candidates : self.candidates.filter { !unusable.contains($0.id) })
    }
}
