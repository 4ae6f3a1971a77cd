import Foundation

/// The window's ranked choice for a cell: for each class of screen (``ScreenShape``), the search's candidates in the
/// ranking's order for the window's sky and that class, the chosen photo first (none: nothing usable near the cell).
/// `variant` N takes the N-th usable one; a photo that proves unusable gives its place to the next. The same in every
/// replica, since the ranking is.
package struct CellChoice: Sendable, Equatable {
    /// Each class's order.
    let orders: [ScreenShape: [SourcePhoto]]
    /// Read back from the photo store after a restart: one class's chosen photo alone, with no search results behind
    /// it (so it answers variant 0 of that class only, and only while it has not failed).
    let restored: Bool

    private init(orders: [ScreenShape: [SourcePhoto]], restored: Bool) {
        self.orders = orders
        self.restored = restored
    }

    /// `photo`, read back from the photo store as `shape`'s chosen photo.
    static func restored(_ photo: SourcePhoto, for shape: ScreenShape) -> CellChoice {
        CellChoice(orders: [shape: [photo]], restored: true)
    }

    package static let empty = CellChoice(orders: [:], restored: false)

    /// Candidates kept for each class: every variant and replacements beyond them.
    static let kept = PhotoVariants.limit + 6

    /// `shape`'s order (empty when it has none).
    package func candidates(for shape: ScreenShape) -> [SourcePhoto] { self.orders[shape] ?? [] }

    /// The choice among a search's candidates by ``PhotoRanking`` for the sky at the cell in the window's middle, for
    /// each class of screen (the stable hash of cell and window picking among the best few), then the rest in the
    /// ranking's order; denied photos are dropped first, and the photos in `people` (whose pixels showed people) ranked
    /// as showing people. With it, the sky it was ranked for and each class's chosen photo's score, for the trace.
    package static func ranking(
        _ results: [CandidatePhoto],
        cell: Geohash,
        window: TimeWindow,
        deny: PhotoDenylist,
        keepOut: KeptOut = KeptOut(),
        people: Set<String> = []
    ) -> (choice: CellChoice, phase: SunPhase, scores: [ScreenShape: [Int]]) {
        let phase = SunPhase(cell: cell, window: window)
        // The operator's lists as they are now, on results of any age (searched here, stored, or shared).
        let allowed = results.filter { !deny.denies($0.photo) && !$0.isKeptOut(by: keepOut) }
        let facts = allowed.map { candidate in
            var facts = candidate.facts
            if people.contains(candidate.photo.id) { facts.people = true }
            if let from = facts.lookFrom, window.index < from {
                (facts.look, facts.interest) = (nil, nil)  // they came after this window's photo
            }
            return facts
        }
        var orders = [ScreenShape: [SourcePhoto]]()
        var scores = [ScreenShape: [Int]]()
        for shape in ScreenShape.allCases {
            let ranking = PhotoRanking(phase: phase, shape: shape)
            let order = ranking.choose(facts, key: cell.value, window: window.index)
            orders[shape] = order.prefix(Self.kept).map { allowed[$0].photo.chosen(for: phase) }
            scores[shape] = order.first.map { ranking.score(facts[$0]) }
        }
        return (CellChoice(orders: orders, restored: false), phase, scores)
    }

    /// Whether the choice can answer `variant` for `shape` with `unusable` photos passed over: a restored photo answers
    /// only variant 0 of its class while it has not failed (otherwise the search results are needed).
    func answers(variant: Int, shape: ScreenShape, excluding unusable: Set<String>) -> Bool {
        !self.restored || (variant == 0 && unusable.isEmpty && self.orders[shape] != nil)
    }

    /// `shape`'s photo for `variant`, passing over those that proved unusable; nil when none is left.
    func photo(variant: Int, shape: ScreenShape, excluding unusable: Set<String>) -> SourcePhoto? {
        let candidates = self.candidates(for: shape)
        return PhotoVariants.pick(variant, from: unusable.isEmpty ? candidates : candidates.filter { !unusable.contains($0.id) })
    }
}
