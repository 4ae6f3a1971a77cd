
@testable import Backdrop

/// Candidates for the ranking, with what each test varies and the rest ordinary.
enum RankingSamples {
    static func candidate(
        _ id: String,
        owner: String? = nil,
        shown: SunPhase? = nil,
        setting: RankingCandidate.Setting = .unsaid,
        accuracy: Int = 16,
        order: Int = 0,
        size: (Int, Int) = (1200, 1600)
    ) -> RankingCandidate {
        RankingCandidate(
            id: id,
            owner: owner ?? "owner-\(id)",
            shown: shown,
            setting: setting,
            accuracy: accuracy,
            order: order,
            width: size.0,
            height: size.1
        )
    }
}
