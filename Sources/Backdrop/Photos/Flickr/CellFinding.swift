import Foundation

/// What searching a cell found in one window: the photo chosen for it, then the one that replaces it if it proves
/// unusable (none: nothing usable near the cell). Replicas share it, so it is small, and the same in every replica.
package struct CellFinding: Sendable, Codable, Equatable {
    package let candidates: [SourcePhoto]

    package init(candidates: [SourcePhoto]) {
        self.candidates = candidates
    }

    package static let empty = CellFinding(candidates: [])

    /// Candidates kept: the chosen photo and its replacements, in order.
    static let kept = 6

    /// The choice among a search's results by ``PhotoRanking`` for the sky at the cell in the window's middle (the
    /// stable hash of cell and window picking among the best few), then the next best as replacements.
    init(choosingFrom photos: [FlickrPhoto], cell: Geohash, window: TimeWindow) {
        let ranking = PhotoRanking(phase: SunPhase(cell: cell, window: window))
        let order = ranking.choose(photos.map { RankingCandidate($0, near: cell) }, key: "\(cell.value)/\(window.index)")
        self.candidates = order.prefix(Self.kept).map { photos[$0].sourcePhoto }
    }

    /// The finding as replicas share it.
    var sharedJSON: Data {
        (try? JSONEncoder().encode(self)) ?? Data("{\"candidates\":[]}".utf8)
    }

    /// A finding another replica shared; nil if it cannot be read.
    init?(sharedJSON json: Data) {
        guard let finding = try? JSONDecoder().decode(CellFinding.self, from: json) else { return nil }
        self = finding
    }

    /// The photo to serve after `skipped` of them proved unusable; nil when none is left.
    func photo(skipped: Int) -> SourcePhoto? {
        self.candidates.indices.contains(skipped) ? self.candidates[skipped] : nil
    }
}
