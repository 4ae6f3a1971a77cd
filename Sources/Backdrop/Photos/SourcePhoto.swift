/// One chosen photo and what must be said about it wherever it is shown.
package struct SourcePhoto: Sendable, Hashable, Codable {
    /// Unique and stable across restarts, e.g. "stock-003" or "flickr-53012345678".
    package let id: String
    package let origin: PhotoOrigin
    package let attribution: Attribution
    /// The sizes a remote photo can be downloaded in, smallest first (empty for local photos).
    package let sizes: [PhotoSize]
    /// A photo chosen in an earlier window, served because its source is failing now.
    package var stale: Bool
    /// Who posted it, as its source names them (a Flickr NSID): what an operator's denylist can name besides the id.
    package let owner: String?
    /// The sky it shows (from its time taken, its tags, or a stock photo's credits), nil when nothing says.
    package let shown: SunPhase?
    /// The sky at the place when it was chosen for it (a search's candidates), so that the quality gate can judge an
    /// undated photo's light; nil when it was not chosen for a sky.
    package private(set) var sky: SunPhase?
    /// Whether its tags or categories say mist or fog (then the quality gate does not take its softness for blur);
    /// nil (not said) in what earlier versions stored.
    private let mist: Bool?
    /// The human judgement its source records (Commons: `featured`, `quality` or `valued`), nil for none.
    package let assessment: String?
    /// Whether its pixels were found to show people (``PhotoContent/showsPeople``) before it was chosen, so that it was
    /// ranked as such and the quality gate need not say so again; nil (no) in what earlier versions stored.
    package private(set) var people: Bool?
    /// How many photos the place has to choose from in this window (`variant` 0 up to this, less one), when the
    /// source says (nil: one).
    package var variantCount: Int?

    package init(
        id: String,
        origin: PhotoOrigin,
        attribution: Attribution,
        sizes: [PhotoSize] = [],
        stale: Bool = false,
        owner: String? = nil,
        shown: SunPhase? = nil,
        sky: SunPhase? = nil,
        misty: Bool = false,
        assessment: String? = nil,
        variantCount: Int? = nil
    ) {
        self.id = id
        self.origin = origin
        self.attribution = attribution
        self.sizes = sizes
        self.stale = stale
        self.owner = owner
        self.shown = shown
        self.sky = sky
        self.mist = misty ? true : nil
        self.assessment = assessment
        self.variantCount = variantCount
    }

    /// Whether its tags or categories say mist or fog.
    package var misty: Bool { self.mist ?? false }

    /// How many photos the place has to choose from in this window: `variant` takes 0 up to this, less one.
    package var variants: Int { self.variantCount ?? 1 }

    /// The same photo, chosen for a place whose sky is `sky`.
    func chosen(for sky: SunPhase) -> SourcePhoto {
        var photo = self
        photo.sky = sky
        return photo
    }

    /// The same photo, marked as showing people when its id is in `people`.
    func showing(people: Set<String>) -> SourcePhoto {
        guard people.contains(self.id) else { return self }
        var photo = self
        photo.people = true
        return photo
    }

    /// Whether it was chosen knowing that it shows people.
    package var showsPeople: Bool { self.people ?? false }

    /// The same photo, said to be one of `count` the place has to choose from.
    func among(_ count: Int) -> SourcePhoto {
        var photo = self
        photo.variantCount = count
        return photo
    }

    /// What the source header says: one of its origin's ``PhotoOrigin/labels`` (`flickr`, or `flickr; stale`).
    package var sourceLabel: String { self.origin.label(stale: self.stale) }

    /// Stock photos and stale ones stand in for what was asked; caches should keep them briefly.
    package var isFallback: Bool { self.origin == .stock || self.stale }

    /// The smallest size that covers `target` when cover-fitted without enlarging, else the largest.
    package func size(covering target: PixelSize) -> PhotoSize? {
        self.sizes.first { $0.width >= target.width && $0.height >= target.height } ?? self.sizes.last
    }
}
