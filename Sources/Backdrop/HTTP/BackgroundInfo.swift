import Foundation

/// The body of `GET /background.json`: the photo a place gets this window and everything its credit needs.
struct BackgroundInfo: Encodable {
    struct License: Encodable {
        let name: String
        let url: String
    }

    struct Window: Encodable {
        let expires: String
        let secondsLeft: Int
    }

    struct Images: Encodable {
        let sharp: String
        let blurred: String
    }

    static let flickrNotice = "This product uses the Flickr API but is not endorsed or certified by SmugMug, Inc."
    static let modifiedNote = "The image served is a modified copy of the original photo: cropped, blurred and tinted."

    let source: String
    let photoId: String
    let title: String
    let owner: String
    let photoPage: String
    let license: License
    let credit: String
    let cell: String
    let window: Window
    let modified: String
    let images: Images
    let notice: String?

    init(photo: SourcePhoto, place: Place, window: TimeWindow, now: Date, coordinate: BackgroundQuery.Coordinate?) {
        let attribution = photo.attribution
        self.source = photo.sourceLabel
        self.photoId = photo.id
        self.title = attribution.title
        self.owner = attribution.author
        self.photoPage = attribution.sourceURL
        self.license = License(name: attribution.license, url: attribution.licenseURL)
        self.credit = attribution.credit
        self.cell = place.key
        self.window = Window(expires: ISO8601DateFormatter().string(from: window.end), secondsLeft: window.secondsLeft(at: now))
        self.modified = Self.modifiedNote
        let location = coordinate.map { "lat=\(Self.number($0.latitude))&lon=\(Self.number($0.longitude))&" } ?? ""
        self.images = Images(sharp: "/background?\(location)blur=0", blurred: "/background?\(location)blur=1")
        self.notice = photo.origin == .flickr ? Self.flickrNotice : nil
    }

    /// A coordinate as a plain decimal the API accepts back (no exponent).
    private static func number(_ value: Double) -> String {
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
