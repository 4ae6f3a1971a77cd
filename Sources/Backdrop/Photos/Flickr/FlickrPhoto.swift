import Foundation

/// One usable result of `flickr.photos.search`: who owns it, under which licence, and the sizes it offers.
package struct FlickrPhoto: Sendable, Hashable {
    package let id: String
    package let owner: String
    package let ownerName: String
    package let pathAlias: String?
    package let title: String
    let license: FlickrLicense
    /// Smallest first.
    package let sizes: [PhotoSize]
    /// Its 100-px thumbnail (`url_t`), whose look the search hashes (``CandidateLooks``).
    var thumbnail: String? = nil
    /// What the ranking reads (``PhotoRanking``): when and where it was taken, its tags, Flickr's order.
    var facts = FlickrPhotoFacts()

    /// The photo page Flickr's terms ask an attribution to link to.
    package var pageURL: String {
        let who = (self.pathAlias?.isEmpty == false ? self.pathAlias : nil) ?? self.owner
        return "https://www.flickr.com/photos/\(Self.pathComponent(who))/\(Self.pathComponent(self.id))"
    }

    init(
        id: String,
        owner: String,
        ownerName: String,
        pathAlias: String?,
        title: String,
        license: FlickrLicense,
        sizes: [PhotoSize],
        facts: FlickrPhotoFacts = FlickrPhotoFacts()
    ) {
        self.id = id
        self.owner = owner
        self.ownerName = ownerName
        self.pathAlias = pathAlias
        self.title = title
        self.license = license
        self.sizes = sizes
        self.facts = facts
    }

    package var sourcePhoto: SourcePhoto { self.sourcePhoto(shown: nil) }

    /// The photo as served, saying what sky it shows (``RankingCandidate/shown``) and whether its tags say mist.
    func sourcePhoto(shown: SunPhase?) -> SourcePhoto {
        SourcePhoto(
            id: "flickr-\(self.id)",
            origin: .flickr,
            attribution: Attribution(
                title: self.title.isEmpty ? "Untitled" : self.title,
                author: self.ownerName.isEmpty ? self.owner : self.ownerName,
                license: self.license.name,
                licenseURL: self.license.url,
                sourceURL: self.pageURL
            ),
            sizes: self.sizes,
            owner: self.owner,
            shown: shown,
            misty: ShownPhase.misty(self.facts.tags)
        )
    }

    private static func pathComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~@"))) ?? text
    }
}

/// The extras a search asks for so that results can be ranked (`date_taken`, `tags`, `geo`, `views`, `o_dims`), as
/// Flickr gives them: the time on the camera's clock without a zone, tags as one space-separated line, `context` 0
/// (not said), 1 (indoors) or 2 (outdoors), `accuracy` from 1 (world) to 16 (street), 0 when not geotagged.
struct FlickrPhotoFacts: Sendable, Hashable {
    /// `datetaken` when Flickr says it is exact (granularity 0, not unknown): `YYYY-MM-DD hh:mm:ss`, wall-clock time.
    package var exactTaken: String?
    package var tags: [String] = []
    package var context = 0
    package var accuracy = 0
    package var latitude: Double?
    package var longitude: Double?
    package var views = 0
    /// The original's size, when the owner shares it (`o_dims`).
    package var originalWidth: Int?
    package var originalHeight: Int?
    /// Where Flickr put it in its answer (0 first): its interestingness order under `sort=interestingness-desc`.
    package var order = 0

    package init() {}
}
