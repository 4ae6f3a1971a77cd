/// One search result as the ranking sees it, whatever its source (Flickr today; any source that knows the same facts).
struct RankingCandidate: Sendable, Codable, Equatable {
    enum Setting: String, Sendable, Codable { case indoors, outdoors, unsaid }

    let id: String
    let owner: String
    /// What the photo shows of the sky (``ShownPhase``), nil when nothing says.
    let shown: SunPhase?
    let setting: Setting
    /// How precisely it is placed: 16 a street, 11 a city, 6 a region, 0 unknown (Flickr's scale).
    let accuracy: Int
    /// The source's own order, best first (Flickr's interestingness).
    let order: Int
    /// The largest size offered.
    let width: Int
    let height: Int
    /// Human judgement the source records: 3 featured, 2 quality, 1 valued (Commons' assessments); nil none.
    var assessment: Int? = nil
    /// Whether the source says it shows identifiable people (Commons' personality rights).
    var people: Bool? = nil
}

/// The order of a cell's candidates for a moment, the same in every process: one deterministic score each, compared
/// term by term:
/// 1. indoors (a setting the photographer said) only when nothing else is left;
/// 2. the sky it shows against the sky at the place now (``SunPhase``): the same, then (by day) unknown, then a
///    neighbouring phase (night and twilight, twilight and golden, golden and day), then (at other times) unknown,
///    then two phases away, then the opposite (day at night);
/// 3. no identifiable people said (Commons' personality rights) over people;
/// 4. human judgement: featured, then quality, then valued, then none (Commons' assessments);
/// 5. outdoors said over not said;
/// 6. placed to a street, a city, a region, or not at all;
/// 7. the source's own order (Flickr's interestingness), by fifties;
/// 8. a portrait photo for a portrait screen, then a square-ish one, then a wide one;
/// then the source's order and the id. No owner takes more than ``perOwner`` places before every other owner's photos.
/// The stable hash of cell and window then picks the first among the best ``poolSize`` equal on terms 1 to 4, so that
/// consecutive windows still change and a better photo is never rotated out for a worse one; the rest follow in order
/// (the replacements if a photo proves unusable).
struct PhotoRanking: Sendable {
    let phase: SunPhase

    static let perOwner = 2
    static let poolSize = 5
    /// The terms the window's rotation keeps equal: setting, sky, people and assessment.
    static let poolTerms = 4

    /// The candidates' indices, the chosen one first.
    func choose(_ candidates: [RankingCandidate], key: String) -> [Int] {
        let (first, later, scores) = self.ranked(candidates)
        guard let best = first.first else { return [] }
        let pool = first.prefix { scores[$0].prefix(Self.poolTerms) == scores[best].prefix(Self.poolTerms) }.prefix(Self.poolSize)
        let pick = pool[pool.startIndex + Int(StableHash.of(key) % UInt64(pool.count))]
        return [pick] + (first + later).filter { $0 != pick }
    }

    /// The best of each owner (``perOwner`` at most), best first; then every owner's others; and every candidate's score.
    func ranked(_ candidates: [RankingCandidate]) -> (first: [Int], later: [Int], scores: [[Int]]) {
        let scores = candidates.map(self.score)
        let sorted = candidates.indices.sorted { a, b in
            if scores[a] != scores[b] { return scores[a].lexicographicallyPrecedes(scores[b]) == false }
            if candidates[a].order != candidates[b].order { return candidates[a].order < candidates[b].order }
            return candidates[a].id < candidates[b].id
        }
        var taken = [String: Int]()
        var first = [Int]()
        var later = [Int]()
        for index in sorted {
            taken[candidates[index].owner, default: 0] += 1
            if taken[candidates[index].owner, default: 0] <= Self.perOwner { first.append(index) } else { later.append(index) }
        }
        return (first, later, scores)
    }

    /// The score's terms, each higher for better (see the type's summary).
    func score(_ candidate: RankingCandidate) -> [Int] {
        [
            candidate.setting == .indoors ? 0 : 1,
            self.skyMatch(candidate.shown),
            candidate.people == true ? 0 : 1,
            candidate.assessment ?? 0,
            candidate.setting == .outdoors ? 1 : 0,
            candidate.accuracy >= 15 ? 3 : candidate.accuracy >= 11 ? 2 : candidate.accuracy >= 6 ? 1 : 0,
            -(candidate.order / 50),
            candidate.height >= candidate.width ? 2 : candidate.height * 4 >= candidate.width * 3 ? 1 : 0,
        ]
    }

    /// How well a photo showing `shown` (nil: nothing says) suits the sky at the place: higher is better.
    func skyMatch(_ shown: SunPhase?) -> Int {
        let place = Self.step(self.phase)
        guard let shown else { return place == 3 ? 5 : 2 }  // undated photos are mostly daytime ones
        switch abs(Self.step(shown) - place) {
        case 0: return 6
        case 1: return 4
        case 2: return 1
        default: return 0
        }
    }

    /// Night 0, twilight 1, golden 2, day 3.
    private static func step(_ phase: SunPhase) -> Int {
        switch phase {
        case .night: 0
        case .twilight: 1
        case .dawn, .dusk: 2
        case .day: 3
        }
    }
}
