@testable import Backdrop

extension PhotoRanking {
    /// The ranking for a portrait screen, the class the tests written before classes assume.
    init(phase: SunPhase) { self.init(phase: phase, shape: .portrait) }

    /// The candidates' indices, best first, at most ``perOwner`` of one owner before every other owner's.
    func rank(_ candidates: [RankingCandidate]) -> [Int] {
        let (first, later, _) = self.ranked(candidates)
        return first + later
    }
}
