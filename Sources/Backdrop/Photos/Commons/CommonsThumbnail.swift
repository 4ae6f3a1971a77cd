/// A Commons thumbnail URL as the API gives it today (`thumburl`, `responsiveUrls`):
/// `https://thumb.wikimedia.org/wikipedia/commons/thumb/a/ab/NAME.jpg/960px-NAME.jpg?utm_source=…`, or on
/// `upload.wikimedia.org` as before 2026 (T427465: the same paths on a new host). Its width is the step in its last
/// path segment (`960px-`), not the `thumbwidth` beside it, which reports the width asked even when the URL points at
/// the next standard step (T388792); a very long name's file part is `960px-thumbnail.jpg`. Thumbnail URLs are not a
/// public API (T66214): another width is made by changing that step alone, to another of Wikimedia's standard steps
/// (the only widths its servers render for everyone), keeping the host, the rest of the path and the query as given.
struct CommonsThumbnail: Sendable, Equatable {
    /// Wikimedia's standard thumbnail steps (`$wgThumbnailSteps`).
    static let steps = [20, 40, 60, 120, 250, 330, 500, 960, 1280, 1920, 3840]

    /// The URL up to the step (`…/NAME.jpg/`), and after it (`px-NAME.jpg?…`).
    private let head: String
    private let tail: String
    /// The width this URL has.
    let step: Int

    /// Nil unless `url` is a web URL whose path runs through `/thumb/` and whose last segment starts with a step
    /// (`NNNpx-`, 1 to 4 digits, 1 to 4000).
    init?(_ url: String) {
        guard let web = WebURL(url), web.path.contains("/thumb/"), let slash = web.path.lastIndex(of: "/") else { return nil }
        let text = web.text
        // The path is a prefix of `rest`, which ends `text`: the same index offsets hold in `text`.
        let pathStart = text.index(text.endIndex, offsetBy: -web.rest.count)
        let segmentStart = text.index(pathStart, offsetBy: web.rest.distance(from: web.rest.startIndex, to: slash) + 1)
        let digits = text[segmentStart...].prefix { $0.isASCII && $0.isNumber }
        guard (1...4).contains(digits.count), text[digits.endIndex...].hasPrefix("px-"), let step = Int(digits), (1...4000).contains(step)
        else { return nil }
        self.head = String(text[..<segmentStart])
        self.tail = String(text[digits.endIndex...])
        self.step = step
    }

    /// The same thumbnail at another standard step; nil for a width that is not one.
    func url(step: Int) -> String? {
        guard Self.steps.contains(step) else { return nil }
        return self.head + String(step) + self.tail
    }

    /// The URL as given (its scheme and host in lower case).
    var url: String { self.head + String(self.step) + self.tail }
}
