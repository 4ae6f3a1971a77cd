/// A search result as the ranking and the other replicas see it, whatever its source: the photo as it is served and
/// the facts the ranking reads. A cell's results travel between replicas as a list of these.
package struct CandidatePhoto: Sendable, Codable, Equatable {
    package let photo: SourcePhoto
    let facts: RankingCandidate

    init(photo: SourcePhoto, facts: RankingCandidate) {
        self.photo = photo
        self.facts = facts
    }
}
