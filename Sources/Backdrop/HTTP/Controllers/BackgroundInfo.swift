import Foundation

/// The body of `GET /background.json`: the photo a place gets this window and everything its credit needs.
struct BackgroundInfo: Encodable {
    struct License: Encodable {
        let name: String
        let url: String
    }

    /// A point of the render, as fractions of its width and height from the top-left corner.
    struct Window: Encodable {
        let expires: String
        let secondsLeft: Int
    }

    /// The sharp and the fully blurred image as cell URLs: in the format the JSON request's `Accept` prefers, and in
    /// every format for an app that chooses itself.
    struct Images: Encodable {
        struct Pair: Encodable {
            let sharp: String
            let blurred: String
        }

        /// The blurred layer itself, small enough to travel inline: shown stretched to the display size.
        struct Preview: Encodable {
            let uri: String
            let width: Int
            let height: Int
        }

        let format: OutputFormat
        let sharp: String
        let blurred: String
        let blurredPreview: Preview
        /// The blurred layer as ThumbHash (base64), BlurHash and `#rrggbb`, for components that take those.
        let thumbHash: String
        let blurHash: String
        let color: String
        /// Keyed by format name.
        let formats: [String: Pair]
        /// Each layer as a CSS `image-set()`: AVIF, WebP and JPEG (each with its `type()`) at every density from 1 to
        /// 3 within the size limits, for a plain CSS background that picks density and format without JavaScript.
        let imageSet: Pair

        init(format: OutputFormat, preview: BlurredPreview, density: Density, url: (OutputFormat, Int, Density) -> String?) {
            self.format = format
            self.sharp = url(format, 0, density) ?? ""
            self.blurred = url(format, 100, density) ?? ""
            self.imageSet = Pair(sharp: Self.imageSet(blur: 0, url: url), blurred: Self.imageSet(blur: 100, url: url))
            self.blurredPreview = Preview(uri: preview.dataURI, width: preview.size.width, height: preview.size.height)
            self.thumbHash = preview.placeholders.thumbHash
            self.blurHash = preview.placeholders.blurHash
            self.color = preview.placeholders.color
            self.formats = Dictionary(
                uniqueKeysWithValues: OutputFormat.allCases.map {
                    ($0.rawValue, Pair(sharp: url($0, 0, density) ?? "", blurred: url($0, 100, density) ?? ""))
                }
            )
        }

        /// `image-set(url("…") type("image/avif") 1x, …)` of the layer at `blur`, formats in order of preference.
        static func imageSet(blur: Int, url: (OutputFormat, Int, Density) -> String?) -> String {
            var options = [String]()
            for format in [OutputFormat.avif, .webp, .jpeg] {
                for density in Density.allCases {
                    guard let path = url(format, blur, density) else { continue }
                    options.append("url(\"\(path)\") type(\"\(format.mediaType)\") \(density.rawValue)x")
                }
            }
            return "image-set(" + options.joined(separator: ", ") + ")"
        }
    }

    static let flickrNotice = "This product uses the Flickr API but is not endorsed or certified by SmugMug, Inc."
    static let modifiedNote = "The image served is a modified copy of the original photo: cropped, blurred and tinted."

    let source: String
    let photoId: String
    let title: String
    let owner: String
    let photoPage: String
    /// What identifies the photo at `photoPage` when the URL alone does not (stock photos: file name and year).
    let photoNote: String?
    let license: License
    let credit: String
    /// Commons' human judgement of the photo, when it has one: `featured`, `quality` or `valued`.
    let assessment: String?
    /// How many faces the photo shows (a count, never where): a photo of people ranks below the photos of the same sky
    /// without them.
    let faces: Int
    let cell: String
    /// The sky at the cell's centre in the middle of the window (``SunPhase``): `night`, `twilight`, `golden` or
    /// `day`; absent without a location.
    let phase: String?
    /// The sky the photo shows (from its time taken, its tags, or a stock photo's credits), by the same names, or
    /// `unknown` when nothing says.
    let photoPhase: String
    /// Which of the place's photos this is (`variant`), and how many it has this window: 0 up to `variants` less one
    /// each give a photo (a larger `variant` counts round again).
    let variant: Int
    let variants: Int
    /// The class of the screen asked for (`portrait`, `square` or `landscape`, by its aspect: ``ScreenShape``): the
    /// photo was chosen for it, and every size of the class gets the same photo this window.
    let orientation: String
    let window: Window
    /// How the photo was cropped (`attention` or `centre`), and where its interest lies in the render: a client that
    /// crops the image again (`object-fit: cover`) keeps it in view with `object-position` at these fractions.
    let crop: String
    let focus: Focus
    /// What text reads over the top, the bottom and the whole of the sharp and the blurred layer (``Legibility``).
    let legibility: Legibility
    let modified: String
    let images: Images
    let notice: String?

    init(photo: SourcePhoto, place: Place, window: TimeWindow, variant: Int, now: Date, preview: BlurredPreview, spec: RenderSpec, images: Images) {
        let attribution = photo.attribution
        self.source = photo.sourceLabel
        self.photoId = photo.id
        self.title = attribution.title
        self.owner = attribution.author
        self.photoPage = attribution.sourceURL
        self.photoNote = attribution.sourceNote
        self.license = License(name: attribution.license, url: attribution.licenseURL)
        self.credit = attribution.credit
        self.assessment = photo.assessment
        self.faces = preview.faces
        self.cell = place.key
        if case .cell(let cell) = place { self.phase = SunPhase(cell: cell, window: window).group } else { self.phase = nil }
        self.photoPhase = photo.shown?.group ?? "unknown"
        self.variant = variant
        self.variants = photo.variants
        self.orientation = ScreenShape(spec.size).rawValue
        self.window = Window(expires: ISO8601DateFormatter().string(from: window.end), secondsLeft: window.secondsLeft(at: now))
        self.crop = spec.crop.rawValue
        self.focus = Focus(x: (preview.focus.x * 1000).rounded() / 1000, y: (preview.focus.y * 1000).rounded() / 1000)
        self.legibility = preview.legibility
        self.modified = Self.modifiedNote
        self.images = images
        self.notice = photo.origin == .flickr ? Self.flickrNotice : nil
    }
}
