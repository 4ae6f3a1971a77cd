import Foundation

/// What `GET /background.json` says of a place for the current 15-minute window: the photo, its credit, the cell
/// URLs of its images and its blurred layer inline.
public struct Background: Sendable, Hashable, Decodable {
    /// Where the photo came from, as `X-Backdrop-Source` says: ``flickr``, ``commons`` (Wikimedia Commons), ``stock`` (no
    /// photo near the place, or its sources failing), or ``staleFlickr`` and ``staleCommons`` (an earlier window's
    /// photo while the source fails).
    public struct Source: RawRepresentable, Sendable, Hashable, Decodable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let flickr = Source(rawValue: "flickr")
        public static let stock = Source(rawValue: "stock")
        public static let staleFlickr = Source(rawValue: "flickr; stale")
        public static let commons = Source(rawValue: "commons")
        public static let staleCommons = Source(rawValue: "commons; stale")
    }

    public struct License: Sendable, Hashable, Decodable {
        public let name: String
        public let url: URL

        enum CodingKeys: String, CodingKey, CaseIterable {
            case name, url
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.name = PlainLine.of(try container.decode(String.self, forKey: .name))
            self.url = try container.decode(URL.self, forKey: .url)
        }
    }

    /// The 15-minute window whose photo this is. The same photo answers every request for the cell until `expires`.
    public struct Window: Sendable, Hashable, Decodable {
        /// The end of the window by the server's clock.
        public let expires: Date
        /// Seconds left in the window when the server answered; ``Background/expiry`` applies them to this device's
        /// clock, which may differ from the server's.
        public let secondsLeft: Int

        enum CodingKeys: String, CodingKey, CaseIterable {
            case expires, secondsLeft
        }
    }

    public let source: Source
    public let photoId: String
    public let title: String
    public let owner: String
    /// The photo's page or origin.
    public let photoPage: URL
    /// What identifies the photo at `photoPage` when the URL alone does not (stock photos: file name and year).
    public let photoNote: String?
    public let license: License
    /// The one-line credit to show with the photo.
    public let credit: String
    /// Commons' human judgement of the photo, when it has one: `featured`, `quality` or `valued`.
    public let assessment: String?
    /// How many faces the photo shows (a count, never where); 0 from servers that do not say.
    public let faces: Int
    /// The geohash cell the photo was chosen for (`none` without a location).
    public let cell: String
    /// The sky at the cell now, from the sun's elevation; nil without a location (or for a phase this client does not
    /// know yet).
    public let phase: Phase?
    /// The sky the photo shows (from its time taken, its tags, or a stock photo's credits); nil when nothing says
    /// (`unknown`) or for a phase this client does not know yet.
    public let photoPhase: Phase?
    /// Which of the place's photos this is, and how many it has this window: ask for another with `variant` (0 up to
    /// `variants`, less one).
    public let variant: Int
    public let variants: Int
    /// The class of the screen asked for, by its aspect: the photo was chosen for it, and every size of the class gets
    /// the same photo this window. Nil from servers that do not say (or a class this client does not know yet).
    public let orientation: Orientation?
    public let window: Window
    /// How the photo was cropped: `attention` (around its subject) or `centre`.
    public let crop: String?
    /// Where the photo's subject lies in the render, as fractions of its width and height: to keep it in view when
    /// cropping the image again (`contentMode = .scaleAspectFill` with an offset, CSS `object-position`).
    public let focus: Focus?
    /// What text reads over the sharp and the blurred layer; nil from a service that does not say.
    public let legibility: Legibility?
    /// A note that the image is a modified copy of the photo.
    public let modified: String
    public internal(set) var images: Images
    /// Flickr's "not endorsed" line, for Flickr photos; show it with the credit.
    public let notice: String?

    /// When this device received the answer (not part of the JSON; the time of decoding unless
    /// ``decode(_:baseURL:receivedAt:)`` was told).
    public internal(set) var receivedAt = Date()

    /// When the window ends by this device's clock: `receivedAt` plus the seconds the server said were left. Fetch
    /// the next photo then.
    public var expiry: Date { self.receivedAt.addingTimeInterval(TimeInterval(self.window.secondsLeft)) }

    /// A point of the render, as fractions of its sides from the top-left corner.
    public struct Focus: Sendable, Hashable, Decodable {
        public let x: Double
        public let y: Double

        enum CodingKeys: String, CodingKey, CaseIterable {
            case x, y
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case source, photoId, title, owner, photoPage, photoNote, license, credit, cell, phase, photoPhase, variant, variants, window, modified
        case images, notice, crop, focus, legibility, assessment, faces, orientation
    }

    /// The class of a screen by its aspect (width / height): portrait below 4:5, landscape above 5:4, square between.
    public enum Orientation: String, Sendable, Decodable, CaseIterable {
        case portrait, square, landscape
    }

    /// The sky at the place: `night` with the sun below −6°, `twilight` to 0°, `golden` (dawn or dusk) to 6°, `day` above.
    public enum Phase: String, Sendable, Decodable, CaseIterable {
        case night, twilight, golden, day
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.source = try container.decode(Source.self, forKey: .source)
        self.photoId = try container.decode(String.self, forKey: .photoId)
        self.title = PlainLine.of(try container.decode(String.self, forKey: .title))
        self.owner = PlainLine.of(try container.decode(String.self, forKey: .owner))
        self.photoPage = try container.decode(URL.self, forKey: .photoPage)
        self.photoNote = try container.decodeIfPresent(String.self, forKey: .photoNote)
        self.license = try container.decode(License.self, forKey: .license)
        self.credit = PlainLine.of(try container.decode(String.self, forKey: .credit))
        self.assessment = try container.decodeIfPresent(String.self, forKey: .assessment)
        self.faces = try container.decodeIfPresent(Int.self, forKey: .faces) ?? 0
        self.cell = try container.decode(String.self, forKey: .cell)
        self.phase = (try? container.decodeIfPresent(String.self, forKey: .phase)).flatMap { $0.flatMap(Phase.init(rawValue:)) }
        self.photoPhase = (try? container.decodeIfPresent(String.self, forKey: .photoPhase)).flatMap { $0.flatMap(Phase.init(rawValue:)) }
        self.variant = try container.decodeIfPresent(Int.self, forKey: .variant) ?? 0
        self.variants = try container.decodeIfPresent(Int.self, forKey: .variants) ?? 1
        self.orientation = (try? container.decodeIfPresent(String.self, forKey: .orientation)).flatMap { $0.flatMap(Orientation.init(rawValue:)) }
        self.window = try container.decode(Window.self, forKey: .window)
        self.crop = try container.decodeIfPresent(String.self, forKey: .crop)
        self.focus = try container.decodeIfPresent(Focus.self, forKey: .focus)
        self.legibility = try container.decodeIfPresent(Legibility.self, forKey: .legibility)
        self.modified = try container.decode(String.self, forKey: .modified)
        self.images = try container.decode(Images.self, forKey: .images)
        self.notice = try container.decodeIfPresent(String.self, forKey: .notice)
    }

    /// `/background.json`'s body, its image URLs resolved against `baseURL` (the service's), received at `receivedAt`.
    public static func decode(_ data: Data, baseURL: URL?, receivedAt: Date = Date()) throws -> Background {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var background = try decoder.decode(Background.self, from: data)
        background.receivedAt = receivedAt
        background.images.baseURL = baseURL
        return background
    }
}
