import Foundation

/// A cell's search results as they are kept and shared: the candidates, and whether their looks (``LookHash``) are
/// still to come. A search answers before its looks are fetched (``LateLooks``): the first request waits only for the
/// search, the photo and the render. The looks arrive later, each marked with the window from which it counts
/// (``RankingCandidate/lookFrom``): the first window to start at least ``lookMargin`` after they were published. So a
/// window ranked before the looks came (its photo already shown) never changes, and every replica ranks each window
/// alike: one that holds results still waiting for looks reads them again from the cluster before ranking a later window
/// (``SearchState/reread(_:in:)``), and a replica whose clock is within ``lookMargin`` of the publisher's cannot rank a window from which
/// the looks count before they were published.
struct CellResults: Sendable, Codable, Equatable {
    var candidates: [CandidatePhoto]
    /// Whether some candidate that can take a turn still waits for its look.
    var looksPending: Bool

    /// How much later than their publication looks may count: more than any two replicas' clocks differ.
    static let lookMargin: TimeInterval = 60

    init(candidates: [CandidatePhoto], looksPending: Bool) {
        self.candidates = candidates
        self.looksPending = looksPending
    }

    private enum CodingKeys: String, CodingKey { case candidates, looksPending }

    /// Results in this form, or a bare list of candidates (as results were kept before looks came late: their looks
    /// were hashed within the search).
    init(from decoder: any Decoder) throws {
        if let list = try? decoder.singleValueContainer().decode([CandidatePhoto].self) {
            self.init(candidates: list, looksPending: false)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            candidates: try container.decode([CandidatePhoto].self, forKey: .candidates),
            looksPending: try container.decode(Bool.self, forKey: .looksPending)
        )
    }

    static func read(_ json: Data) -> CellResults? { try? JSONDecoder().decode(CellResults.self, from: json) }

    var json: Data { (try? JSONEncoder().encode(self)) ?? Data(#"{"candidates":[],"looksPending":false}"#.utf8) }

    /// The first window (of `seconds`) from which looks published at `date` count.
    static func looksCount(from date: Date, windowSeconds seconds: Int) -> Int64 {
        TimeWindow(containing: date.addingTimeInterval(Self.lookMargin), seconds: seconds).index + 1
    }
}
