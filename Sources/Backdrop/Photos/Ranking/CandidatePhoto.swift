/// A search result as the ranking and the other replicas see it, whatever its source: the photo as it is served and
/// the facts the ranking reads. A cell's results travel between replicas as a list of these.
package struct CandidatePhoto: Sendable, Codable, Equatable {
    package let photo: SourcePhoto
    var facts: RankingCandidate
    /// A small size of it (about 100 px) whose look the search hashes (``CandidateLooks``); nil when the source has none.
    let thumbnail: String?
    /// What ``KeptOut`` reads, kept so that a word added to `photos.keepOut` reaches results already searched, stored
    /// and shared (read at every ranking): its categories (Commons, lower case, at most ``keptTerms``) or its tags
    /// (Flickr). Nil in results an earlier version stored, which were filtered by the list of their day.
    let categories: [String]?
    let tags: [String]?

    /// The most categories or tags kept with a candidate, each at most ``keptTermBytes`` bytes: the whole list is read
    /// when the answer is parsed; these are what later lists are matched against.
    static let keptTerms = 64
    static let keptTermBytes = 200

    init(photo: SourcePhoto, facts: RankingCandidate, thumbnail: String? = nil, categories: [String]? = nil, tags: [String]? = nil) {
        self.photo = photo
        self.facts = facts
        self.thumbnail = thumbnail
        self.categories = categories.map(Self.kept)
        self.tags = tags.map(Self.kept)
    }

    /// Whether `keepOut` names what it shows.
    func isKeptOut(by keepOut: KeptOut) -> Bool {
        if let categories, keepOut.reason(categories: categories) != nil { return true }
        if let tags, keepOut.reason(tags: tags) != nil { return true }
        return false
    }

    private static func kept(_ terms: [String]) -> [String] {
        terms.prefix(Self.keptTerms).map { String(decoding: $0.utf8.prefix(Self.keptTermBytes), as: UTF8.self) }
    }
}
