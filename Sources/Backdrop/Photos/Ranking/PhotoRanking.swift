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
    /// How much of its interest each class's crop keeps, read with its look; nil: judged by its area kept.
    var interest: CropInterest? = nil
    /// The first window whose ranking counts the look and the interest (``CellResults``); nil: every window's.
    var lookFrom: Int64? = nil
    /// Its place in the source's judgement of quality, best first (Flickr's interestingness); nil when the source's
    /// order says only where a photo is (Commons: assessed, then nearest).
    var interestingness: Int? = nil
    /// How far it was taken from the place (the cell's centre), in metres; nil when not placed.
    var distance: Double? = nil
}

/// The order of a cell's candidates for a moment and a class of screen (``ScreenShape``), the same in every process,
/// as a photo editor would set it: one deterministic score each, compared term by term:
/// 1. a panorama (its long side over 2.5 times its short side) only when nothing else is left;
/// 2. indoors (a setting the photographer said) only when nothing else is left;
/// 3. a view of the place (``PhotoSubject``: views, streets, skylines, landmarks' exteriors), then a photo whose
///    subject nothing says, then one that is not a view (a sculpture, a bus, a door, a room, a portrait);
/// 4. no identifiable people said (Commons' personality rights, or faces found) over people;
/// 5. the sky it shows against the sky at the place now (``SunPhase``), in bands: the same or a neighbouring phase
///    (night and twilight, twilight and golden, golden and day; by day, a photo whose sky nothing says), then two
///    phases away (at other times, a photo whose sky nothing says, mostly a daytime one), then the opposite;
/// 6. human judgement: featured, then quality, then valued, then none (Commons' assessments);
/// 7. the source's judgement, by fifties (Flickr's interestingness);
/// 8. the crop's quality on the screen's class (``fit(_:)``): the share of the photo's interest (``CropInterest``, on
///    its thumbnail) or, unread, of its area that a cover crop keeps: at least 3/5, at least 2/5, less;
/// 9. large enough: enlarged at most ``largestEnlargement`` times to cover the class's reference screen;
/// 10. the exact sky within its band: the same phase, then (by day) unknown, then a neighbouring one; two away after
///     unknown;
/// 11. outdoors said over not said;
/// 12. nearer the place, by ``distanceStep``s (unplaced last);
/// 13. placed to a street, a city, a region, or not at all;
/// then the source's order and the id. No owner takes more than ``perOwner`` places before every other owner's photos.
/// The window then takes its turn among the best (up to ``poolSize``) equal on terms 1 to 9, topped up to
/// ``fewestScenes`` from the next (equal on terms 1 to 5 and 9, a crop keeping at least 2/5 or no worse), the best
/// shown twice as often (``PhotoChoice``); near-duplicates (photos one owner took within ten minutes, or of one look)
/// counted as one: every photo of the pool before any repeats, never the previous window's. So a better photo is never
/// rotated out for a worse one, and a phone gets a landscape photo that keeps under 2/5 of its interest only when it is
/// better judged than every portrait. The rest follow in order (the replacements if a photo proves unusable).
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
    /// The terms the window's rotation keeps equal: panorama, setting, subject, people, sky band, assessment, the
    /// source's judgement, crop and size.
    static let poolTerms = Array(0..<9)
    /// The terms a pool's top-up keeps equal to the best's: all of ``poolTerms`` but the judgements and the crop, which
    /// keeps at least 2/5 (or is no worse than the best's).
    static let topUpTerms = [0, 1, 2, 3, 4, 8]
    /// The crop's term (``fit(_:)``).
    static let cropTerm = 7
    /// The fewest scenes a pool takes turns among where the place has them: a pool the best tier leaves smaller is
    /// topped up, in rank order, by the photos equal to the best on ``topUpTerms``, and the best tier shown twice as
    /// often as they are.
    static let fewestScenes = 4
    /// A photo's long side over its short side beyond which it is a panorama.
    static let panorama = 2.5
    /// The most a photo is enlarged to cover the class's reference screen while a larger one of the same standing exists.
    static let largestEnlargement = 2.0
    /// Distances to the place within one step of this many metres count as the same.
    static let distanceStep = 250.0

    /// The candidates' indices, the chosen one first: window number `window` of place `key` takes its turn in the
    /// pool (``PhotoChoice``), the best equal on ``poolTerms``, near-duplicates counted once (``isNearDuplicate``).
    func choose(_ candidates: [RankingCandidate], key: String, window: Int64) -> [Int] {
        let (first, later, scores) = self.ranked(candidates)
        guard !first.isEmpty else { return [] }
        var pool = [Int]()
        func take(_ indices: [Int], upTo size: Int) {
            for index in indices where !pool.contains(index) {
                guard pool.count < size else { break }
                if !pool.contains(where: { Self.isNearDuplicate(candidates[$0], candidates[index]) }) { pool.append(index) }
            }
        }
        take(Self.contenders(first, scores: scores), upTo: Self.poolSize)
        let best = pool.count
        // One featured photo never makes a pool of one: one edit of a page's categories would hold every window.
        let crop = min(scores[first[0]][Self.cropTerm], 1)
        take(Self.contenders(first, scores: scores, terms: Self.topUpTerms).filter { scores[$0][Self.cropTerm] >= crop }, upTo: Self.fewestScenes)
        let pick = pool[PhotoChoice.index(key: key, window: window, count: pool.count, favoured: best)]
        return [pick] + (first + later).filter { $0 != pick }
    }

    /// The candidates that may take a turn in the pool: those of `first` (``ranked(_:)``'s order) equal to the best on
    /// `terms` (``poolTerms``), best first, near-duplicates and all.
    static func contenders(_ first: [Int], scores: [[Int]], terms: [Int] = Self.poolTerms) -> [Int] {
        guard let best = first.first else { return [] }
        return first.filter { index in terms.allSatisfy { scores[index][$0] == scores[best][$0] } }
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
        let sky = self.skyMatch(candidate.shown)
        return [
            Self.isPanorama(width: candidate.width, height: candidate.height) ? 0 : 1,
            candidate.setting == .indoors ? 0 : 1,
            (candidate.subject ?? .unknown).rawValue,
            candidate.people == true ? 0 : 1,
            sky >= 4 ? 2 : sky >= 1 ? 1 : 0,
            candidate.assessment ?? 0,
            candidate.interestingness.map { -($0 / 50) } ?? 0,
            self.fit(candidate),
            self.shape.enlargement(width: candidate.width, height: candidate.height) <= Self.largestEnlargement ? 1 : 0,
            sky,
            candidate.setting == .outdoors ? 1 : 0,
            candidate.distance.map { -Int(total: ($0 / Self.distanceStep).rounded(.down)) } ?? Int(Int32.min),
            candidate.accuracy >= 15 ? 3 : candidate.accuracy >= 11 ? 2 : candidate.accuracy >= 6 ? 1 : 0,
        ]
    }

    /// The crop's quality for a candidate on the screen's class: its interest kept (``CropInterest``) when its thumbnail
    /// was read, else its area kept (``fit(width:height:)``'s measure).
    func fit(_ candidate: RankingCandidate) -> Int {
        Self.fit(kept: candidate.interest?.kept(self.shape) ?? self.shape.kept(width: candidate.width, height: candidate.height))
    }

    /// How well a `width` x `height` photo fits the screen's class by its area: a cover crop keeps at least 3/5 of it,
    /// at least 2/5, or less.
    func fit(width: Int, height: Int) -> Int {
        Self.fit(kept: self.shape.kept(width: width, height: height))
    }

    /// 2 for a crop that keeps at least 3/5, 1 at least 2/5, else 0.
    static func fit(kept: Double) -> Int { kept >= 0.6 ? 2 : kept >= 0.4 ? 1 : 0 }

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
