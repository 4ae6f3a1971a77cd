/// A search result as the ranking and the other replicas see it, whatever its source: the photo as it is served and
/// the facts the ranking reads. A cell's results travel between replicas as a list of these.
package struct CandidatePhoto: Sendable, Codable, Equatable {
    package let photo: SourcePhoto
    var facts: RankingCandidate
    /// A small size of it (about 100 px) whose look the search hashes (``CandidateLooks``); nil when the source has none.
    let thumbnail: String?

    init(photo: SourcePhoto, facts: RankingCandidate, thumbnail: String? = nil) {
        self.photo = photo
        self.facts = facts
        self.thumbnail = thumbnail
    }
}
