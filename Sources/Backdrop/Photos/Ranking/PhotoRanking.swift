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
    var order: Int
    /// The largest size offered.
    let width: Int
    let height: Int
    /// Human judgement the source records: 3 featured, 2 quality, 1 valued (Commons' assessments); nil none.
    var assessment: Int? = nil
    /// What it shows (``PhotoSubject``, from Commons' categories): a view of the place or not; nil unknown.
    var subject: PhotoSubject? = nil
    /// Whether the source says it shows identifiable people (Commons' personality rights).
    var people: Bool? = nil
    /// When it was taken, as seconds on the camera's zone-less clock (``ShownPhase/seconds(_:)``); nil when not exact.
    var taken: Double? = nil
    /// Its look (``LookHash``) from the source's thumbnail, nil when none was fetched.
    var look: LookHash? = nil
    /// The first window whose ranking counts the look (``CellResults``); nil: every window's.
    var lookFrom: Int64? = nil
}

/// The order of a cell's candidates for a moment and a class of screen (``ScreenShape``), the same in every process: one
/// deterministic score each, compared term by term:
/// 1. a panorama (its long side over 2.5 times its short side) only when nothing else is left;
/// 2. indoors (a setting the photographer said) only when nothing else is left;
/// 3. a view of the place (``PhotoSubject``: views, streets, skylines, landmarks' exteriors), then a photo whose
///    subject nothing says, then one that is not a view (a sculpture, a bus, a door, a room, a portrait);
/// 4. the sky it shows against the sky at the place now (``SunPhase``): the same, then (by day) unknown, then a
///    neighbouring phase (night and twilight, twilight and golden, golden and day), then (at other times) unknown,
///    then two phases away, then the opposite (day at night);
/// 5. no identifiable people said (Commons' personality rights) over people;
/// 6. the fit to the screen's class: a cover crop to the class's aspect keeping at least 3/5 of the photo, then at
///    least 2/5, then less (a 3:2 photo keeps 84 % on a 16:9 screen, 67 % on a square one and 37.5 % on a 9:16 one);
/// 7. large enough: enlarged at most ``largestEnlargement`` times to cover the class's reference screen;
/// 8. human judgement: featured, then quality, then valued, then none (Commons' assessments);
/// 9. outdoors said over not said;
/// 10. placed to a street, a city, a region, or not at all;
/// 11. the source's own order (Flickr's interestingness), by fifties;
/// then the source's order and the id. No owner takes more than ``perOwner`` places before every other owner's photos.
/// The window then takes its turn among the best (up to ``poolSize``) equal on terms 1 to 8 (topped up to
/// ``fewestScenes`` from those equal on terms 1 to 7), near-duplicates (photos
/// one owner took within ten minutes, or of one look) counted as one (``PhotoChoice``: every photo of the pool before any repeats, never the previous
/// window's), so a better photo is never rotated out for a worse one: a landscape screen never gets a portrait photo
/// while a landscape one of the same standing exists. The rest follow in order (the replacements if a photo proves
/// unusable).
struct PhotoRanking: Sendable {
    let phase: SunPhase
    let shape: ScreenShape

    init(phase: SunPhase, shape: ScreenShape) {
        self.phase = phase
        self.shape = shape
    }

    static let perOwner = 2
    /// The most photos a pool takes turns among: as many as a class keeps (``CellChoice/kept``).
    static let poolSize = 16
    /// Photos one owner took this close together (seconds) are near-duplicates.
    static let burst = 600.0
    /// The terms the window's rotation keeps equal: panorama, setting, subject, sky, people, fit, size and assessment.
    static let poolTerms = 8
    /// The fewest scenes a pool takes turns among where the place has them: a pool the best assessment leaves smaller
    /// is topped up, in rank order, by the photos equal to the best on terms 1 to 7 (all but the assessment).
    static let fewestScenes = 4
    /// A photo's long side over its short side beyond which it is a panorama.
    static let panorama = 2.5
    /// The most a photo is enlarged to cover the class's reference screen while a larger one of the same standing exists.
    static let largestEnlargement = 2.0

    /// The candidates' indices, the chosen one first: window number `window` of place `key` takes its turn in the
    /// pool (``PhotoChoice``), the best equal on terms 1 to 8, near-duplicates counted once (``isNearDuplicate``).
    func choose(_ candidates: [RankingCandidate], key: String, window: Int64) -> [Int] {
        let (first, later, scores) = self.ranked(candidates)
        guard !first.isEmpty else { return [] }
        var pool = [Int]()
        func take(_ indices: ArraySlice<Int>, upTo size: Int) {
            for index in indices where !pool.contains(index) {
                guard pool.count < size else { break }
                if !pool.contains(where: { Self.isNearDuplicate(candidates[$0], candidates[index]) }) { pool.append(index) }
            }
        }
        take(Self.contenders(first, scores: scores), upTo: Self.poolSize)
        // Assessment alone never makes a pool of one: one edit of a page's categories would hold every window.
        take(Self.contenders(first, scores: scores, terms: Self.poolTerms - 1), upTo: Self.fewestScenes)
        let pick = pool[PhotoChoice.index(key: key, window: window, count: pool.count)]
        return [pick] + (first + later).filter { $0 != pick }
    }

    /// The candidates that may take a turn in the pool: those of `first` (``ranked(_:)``'s order) equal to the best on
    /// terms 1 to ``poolTerms``, best first, near-duplicates and all.
    static func contenders(_ first: [Int], scores: [[Int]], terms: Int = Self.poolTerms) -> ArraySlice<Int> {
        guard let best = first.first else { return [] }
        return first.prefix { scores[$0].prefix(terms) == scores[best].prefix(terms) }
    }

    /// One scene, one turn: two photos one owner took within ``burst`` seconds of each other by the camera's clock, or
    /// two whose looks (anyone's) are within ``LookHash/nearDuplicate`` bits.
    static func isNearDuplicate(_ a: RankingCandidate, _ b: RankingCandidate) -> Bool {
        if let first = a.look, let second = b.look, first.isNearDuplicate(of: second) { return true }
        guard a.owner == b.owner, let first = a.taken, let second = b.taken else { return false }
        return abs(first - second) <= Self.burst
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
            Self.isPanorama(width: candidate.width, height: candidate.height) ? 0 : 1,
            candidate.setting == .indoors ? 0 : 1,
            (candidate.subject ?? .unknown).rawValue,
            self.skyMatch(candidate.shown),
            candidate.people == true ? 0 : 1,
            self.fit(width: candidate.width, height: candidate.height),
            self.shape.enlargement(width: candidate.width, height: candidate.height) <= Self.largestEnlargement ? 1 : 0,
            candidate.assessment ?? 0,
            candidate.setting == .outdoors ? 1 : 0,
            candidate.accuracy >= 15 ? 3 : candidate.accuracy >= 11 ? 2 : candidate.accuracy >= 6 ? 1 : 0,
            -(candidate.order / 50),
        ]
    }

    /// How well a `width` x `height` photo fits the screen's class: 2 when a cover crop keeps at least 3/5 of it, 1 at
    /// least 2/5, else 0.
    func fit(width: Int, height: Int) -> Int {
        let kept = self.shape.kept(width: width, height: height)
        return kept >= 0.6 ? 2 : kept >= 0.4 ? 1 : 0
    }

    static func isPanorama(width: Int, height: Int) -> Bool {
        Double(max(width, height)) > Self.panorama * Double(max(1, min(width, height)))
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
