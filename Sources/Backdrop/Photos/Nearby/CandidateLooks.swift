import Synchronization

/// The looks (``LookHash``) and crops' interest (``CropInterest``) of a search's candidates that can take a turn in a
/// pool, from their sources' thumbnails (about 100 px, a few kB each), so that the ranking counts copies of one scene by
/// different owners as one photo (``PhotoRanking/isNearDuplicate(_:_:)``) and judges a crop by what it keeps.
///
/// A search takes the looks already known at once (``known(_:previous:)``: hashed before, or kept with the cell's
/// earlier results, since a photo's look does not change); the rest are fetched after the first answer (``LateLooks``,
/// ``missing(_:)``), in the media hosts' background lane. Bounded: at most ``limit`` thumbnails, ``parallel`` at a time;
/// the fetching stops once none has come for ``idle`` (3 s: a host that hangs) or after ``budget`` (30 s) in all. No
/// answer waits for it, so it takes what the background lane's one place carries (at 150 ms a thumbnail, a cell's 32 in
/// about 5 s).
/// A thumbnail that fails, or is not there in time, leaves its candidate without a look: it counts as a scene of its
/// own, as before looks.
struct CandidateLooks: Sendable {
    let downloader: any ImageDownloading
    /// What each thumbnail (by URL) showed.
    let memo: MemoryLRU<String, ThumbnailReading>

    static let limit = 64
    /// The most bytes a thumbnail may take: a 120-px JPEG is about 5 kB.
    static let maxBytes = 256 << 10
    static let parallel = 8
    /// How long the fetching waits with no thumbnail come (``defaultIdle``), and how long it lasts at most
    /// (``defaultBudget``); tests of other things than these bounds, run beside the whole suite, give more.
    let idle: Duration
    let budget: Duration
    static let defaultIdle = Duration.seconds(3)
    static let defaultBudget = Duration.seconds(30)
    /// The most candidates of one sky and class looked at: twice a pool, since near-duplicates leave places in it.
    static let perPool = 2 * PhotoRanking.poolSize

    init(downloader: any ImageDownloading, entries: Int = 4096, idle: Duration = Self.defaultIdle, budget: Duration = Self.defaultBudget) {
        self.idle = idle
        self.budget = budget
        self.downloader = downloader
        self.memo = MemoryLRU(budget: entries) { _ in 1 }
    }

    /// `candidates` with the looks already known of those that can enter a pool (from the memo, or from `previous`: the
    /// cell's earlier results), no thumbnail fetched; and whether some of them still lack one.
    func known(_ candidates: [CandidatePhoto], previous: [CandidatePhoto]) async -> (candidates: [CandidatePhoto], pending: Bool) {
        var kept = [String: ThumbnailReading]()
        for candidate in previous {
            if let url = candidate.thumbnail, let look = candidate.facts.look, let interest = candidate.facts.interest {
                kept[url] = ThumbnailReading(look: look, interest: interest)
            }
        }
        var result = candidates
        var pending = false
        for index in Self.poolCandidates(candidates.map(\.facts)) {
            guard let url = candidates[index].thumbnail, candidates[index].facts.look == nil else { continue }
            let remembered = await self.memo.cached(url)
            if let reading = kept[url] ?? remembered {
                result[index].facts.look = reading.look
                result[index].facts.interest = reading.interest
                result[index].facts.lookFrom = nil  // known when the results are published: it counts at once
            } else {
                pending = true
            }
        }
        return (result, pending)
    }

    /// The readings (by candidate index) fetched for the candidates that can enter a pool and have no look yet.
    func missing(_ candidates: [CandidatePhoto]) async -> [(Int, ThumbnailReading)] {
        let wanted = Self.poolCandidates(candidates.map(\.facts)).compactMap { index in
            candidates[index].facts.look == nil ? candidates[index].thumbnail.map { (index, $0) } : nil
        }
        return await self.fetch(wanted)
    }

    /// The candidates (indices) that can take a turn in some pool: for each sky and class of screen, those of the
    /// ranking's best equal on the terms above the crop's quality (which the thumbnail measures), up to ``perPool``
    /// each; at most ``limit`` in all, in that order.
    static func poolCandidates(_ facts: [RankingCandidate]) -> [Int] {
        var chosen = [Int]()
        var seen = Set<Int>()
        for phase in [SunPhase.day, .night, .dusk, .twilight] {
            for shape in ScreenShape.allCases {
                let (first, _, scores) = PhotoRanking(phase: phase, shape: shape).ranked(facts)
                for index in PhotoRanking.contenders(first, scores: scores, terms: Self.judgedBefore).prefix(Self.perPool)
                where seen.insert(index).inserted {
                    chosen.append(index)
                }
            }
        }
        return Array(chosen.prefix(Self.limit))
    }

    /// The looks of the thumbnails that arrive, ``parallel`` at a time, until none has come for ``idle`` or ``budget``
    /// has passed.
    private func fetch(_ thumbnails: [(Int, String)]) async -> [(Int, ThumbnailReading)] {
        guard !thumbnails.isEmpty else { return [] }
        let end = ContinuousClock.now + self.budget
        let lastCame = LastArrival()
        return await withTaskGroup(of: (Int, ThumbnailReading?)?.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    let due = min(end, lastCame.time + self.idle)
                    if ContinuousClock.now >= due { break }
                    try? await Task.sleep(until: due)
                }
                return nil  // none came for a while, or the budget is spent: what has not arrived goes without
            }
            var pending = thumbnails[...]
            func start() {
                guard let (index, url) = pending.popFirst() else { return }
                group.addTask { (index, await self.look(url)) }
            }
            for _ in 0..<Self.parallel { start() }
            var looks = [(Int, ThumbnailReading)]()
            var running = min(Self.parallel, thumbnails.count)
            while running > 0, let next = await group.next() {
                guard let (index, look) = next else { break }
                lastCame.now()
                running -= 1
                if let look { looks.append((index, look)) }
                if !pending.isEmpty {
                    start()
                    running += 1
                }
            }
            group.cancelAll()
            return looks
        }
    }

    /// What the thumbnail at `url` shows, nil when it cannot be had.
    private func look(_ url: String) async -> ThumbnailReading? {
        try? await self.memo.value(for: url) {
            let bytes = try await self.downloader.download(url)
            let image = try ImageDecoder.decode(bytes, covering: nil, limits: Self.limits)
            return ThumbnailReading(look: LookHash(image), interest: CropInterest(image))
        }
    }

    /// The ranking's terms above the crop's quality (``PhotoRanking/score(_:)``): panorama to the source's judgement.
    static let judgedBefore = Array(0..<PhotoRanking.cropTerm)

    /// A thumbnail is small: anything much larger is not one.
    static let limits = DecodeLimits(maxPixels: 1 << 20, maxDecoderMemory: 16 << 20, maxProgressiveScans: 20)
}

/// What a thumbnail showed: the photo's look and its crops' interest.
struct ThumbnailReading: Sendable, Hashable {
    let look: LookHash
    let interest: CropInterest
}

/// When the last thumbnail came, read by the fetch's timer.
private final class LastArrival: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    var time: ContinuousClock.Instant { self.instant.withLock { $0 } }

    func now() { self.instant.withLock { $0 = .now } }
}
