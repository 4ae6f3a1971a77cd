extension RankingCandidate {
    /// A Flickr result: its phase from its exact time taken at its own place (else the cell's centre), else its tags.
    init(_ photo: FlickrPhoto, near cell: Geohash) {
        let facts = photo.facts
        let centre = cell.centre
        let shown =
            facts.exactTaken.flatMap {
                ShownPhase.phase(taken: $0, latitude: facts.latitude ?? centre.latitude, longitude: facts.longitude ?? centre.longitude)
            } ?? ShownPhase.phase(tags: facts.tags)
        let largest = photo.sizes.last
        self.init(
            id: photo.id,
            owner: photo.owner,
            shown: shown,
            setting: facts.context == 1 ? .indoors : facts.context == 2 ? .outdoors : .unsaid,
            accuracy: facts.accuracy,
            order: facts.order,
            width: facts.originalWidth ?? largest?.width ?? 0,
            height: facts.originalHeight ?? largest?.height ?? 0,
            taken: facts.exactTaken.flatMap(ShownPhase.seconds),
            interestingness: facts.order,
            distance: facts.latitude.flatMap { latitude in
                facts.longitude.map { Geohash.metres(from: centre, to: (latitude, $0)) }
            }
        )
    }
}

extension CandidatePhoto {
    /// A Flickr result as the ranking and the replicas see it: its facts, and the photo saying what sky it shows.
    package init(_ photo: FlickrPhoto, near cell: Geohash) {
        let facts = RankingCandidate(photo, near: cell)
        self.init(photo: photo.sourcePhoto(shown: facts.shown), facts: facts, thumbnail: photo.thumbnail, tags: photo.facts.tags)
    }
}
