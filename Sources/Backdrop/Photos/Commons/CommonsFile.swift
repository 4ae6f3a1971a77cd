import Foundation

/// One Commons file as Backdrop serves it: its credit in plain text, its sizes in Wikimedia's standard thumbnail
/// widths, and what the ranking reads (its sky, setting, assessments, personality rights). Nil for anything but a large
/// enough JPEG under a licence served, and for a file whose categories ``KeptOut`` names. Every field is a page edit
/// away from hostile: each is checked where it enters (sizes positive and bounded, a position on the globe, URLs as a
/// browser reads them, links built rather than passed on), and a field that fails is refused or its file skipped.
struct CommonsFile {
    /// The thumbnail widths served, of Wikimedia's standard steps (``CommonsThumbnail/steps``).
    static let standardWidths = [960, 1280, 1920]
    /// The width a search asks `iiurlwidth` for; its `thumburl` and `responsiveUrls` are taken as they come.
    static let askedWidth = 1280
    /// The standard width whose thumbnail's look is hashed (``CandidateLooks``): about 5 kB.
    static let lookWidth = 120
    /// The largest side a file may claim: Commons' largest JPEGs are about 30,000 px.
    static let largestSide = 100_000
    /// Commons' assessment categories by the ranking's number, matched exactly (by MediaWiki: `clcategories`).
    static let assessmentCategories = [
        "Category:Featured pictures on Wikimedia Commons": 3, "Category:Quality images": 2,
        "Category:Valued images sorted by promotion date": 1,
    ]

    let photo: SourcePhoto
    let facts: RankingCandidate
    /// Its thumbnail ``lookWidth`` px wide, when the search gave a thumbnail to make it from.
    let thumbnail: String?
    /// Its category names in lower case, for ``KeptOut`` at ranking time.
    let categories: [String]

    init?(_ page: CommonsSearchResponse.Page, order: Int, near cell: Geohash, keepOut: KeptOut = KeptOut()) {
        guard page.pageid > 0, let info = page.imageinfo?.first, let width = info.width, let height = info.height,
            (1...Self.largestSide).contains(width), (1...Self.largestSide).contains(height),
            max(width, height) >= CommonsSearchResponse.minimumLongSide, let original = info.url.flatMap(WebURL.init),
            info.mime.map({ $0 == "image/jpeg" }) ?? [".jpg", ".jpeg"].contains(where: original.path.lowercased().hasSuffix)
        else { return nil }
        let meta = { (key: String) in info.extmetadata?[key]?.text ?? "" }
        let code = meta("License").isEmpty ? CommonsLicense.code(shortName: meta("LicenseShortName")) : meta("License")
        guard let license = CommonsLicense(code: code) else { return nil }
        let thumbnails = ([info.thumburl] + ["1.5", "2"].map { info.responsiveUrls?[$0] }).compactMap { $0.flatMap(CommonsThumbnail.init) }
        let sizes = Self.sizes(original: original.text, thumbnails: thumbnails, width: width, height: height)
        guard !sizes.isEmpty else { return nil }
        self.thumbnail = thumbnails.first?.url(step: Self.lookWidth)
        let name = PlainText.line(page.title.hasPrefix("File:") ? String(page.title.dropFirst(5)) : page.title, limit: 240)
        let objectName = PlainText.from(html: meta("ObjectName"), limit: 120)
        let attribution = PlainText.from(html: meta("Attribution"))
        let artist = PlainText.from(html: meta("Artist"))
        let title = !objectName.isEmpty ? objectName : PlainText.line(String(name.prefix { $0 != "." }), limit: 120)
        let author = !attribution.isEmpty ? attribution : !artist.isEmpty ? artist : "Unknown author"
        // Where the camera stood: the page's GPS metadata (any number a page edit writes), else its coordinates; a
        // position off the globe is no position.
        let position =
            GeoPoint(latitude: meta("GPSLatitude"), longitude: meta("GPSLongitude"))
            ?? page.coordinates?.first.flatMap { GeoPoint(latitude: $0.lat, longitude: $0.lon) }
        let taken = PlainText.from(html: meta("DateTimeOriginal"), limit: 40)
        let categories = meta("Categories").split(separator: "|").map { $0.lowercased() }
        self.categories = categories
        guard keepOut.reason(categories: categories) == nil else { return nil }
        let words = categories.flatMap(Self.words)
        // `Restrictions` is a list such as `personality|trademarked`.
        let restrictions = Set(meta("Restrictions").lowercased().split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) })
        let rank = (page.categories ?? []).compactMap { Self.assessmentCategories[$0.title] }.max()
        let assessment = rank.map { [1: "valued", 2: "quality", 3: "featured"][$0] ?? "valued" }
        let shown: SunPhase?
        let exact = Self.exactTime(taken)
        if let exact {
            // A file with no position was found near the cell's centre: its clock is read there.
            let place = position?.pair ?? cell.centre
            shown = ShownPhase.phase(taken: exact, latitude: place.latitude, longitude: place.longitude) ?? CategoryPhrases.phase(categories)
        } else {
            shown = CategoryPhrases.phase(categories)
        }
        self.photo = SourcePhoto(
            id: "commons-\(page.pageid)",
            origin: .commons,
            attribution: Attribution(
                title: title.isEmpty ? "Untitled" : title,
                author: author,
                license: license.name,
                licenseURL: license.url,
                sourceURL: Self.pageURL(info.descriptionurl, title: name)
            ),
            sizes: sizes,
            owner: Self.uploader(info),
            shown: shown,
            misty: CategoryPhrases.misty(categories),
            assessment: assessment
        )
        let indoors = words.contains { ["interior", "interiors", "indoors", "inside"].contains($0) }
        let outdoors = words.contains { ["exterior", "exteriors", "outdoors", "landscapes", "skylines", "cityscapes", "views"].contains($0) }
        self.facts = RankingCandidate(
            id: self.photo.id,
            owner: Self.rankingOwner(uploader: info.user, account: self.photo.owner, artistHTML: meta("Artist"), artist: artist)
                ?? self.photo.id,
            shown: shown,
            setting: indoors ? .indoors : outdoors ? .outdoors : .unsaid,
            accuracy: position != nil ? 16 : 11,
            order: order,
            width: width,
            height: height,
            assessment: rank,
            subject: PhotoSubject.of(categories: categories),
            people: restrictions.contains("personality") ? true : nil,
            taken: exact.flatMap(ShownPhase.seconds),
            distance: position.map { Geohash.metres(from: cell.centre, to: $0.pair) }
        )
    }

    var candidate: CandidatePhoto {
        CandidatePhoto(photo: self.photo, facts: self.facts, thumbnail: self.thumbnail, categories: self.categories)
    }

    /// Who a file counts as for the per-owner cap and near-duplicate bursts: its uploader's account, unless the file
    /// was imported, when it is its author (`commons-artist:` and the credit in lower case), so that one importer's
    /// thousands of photographers (a Flickr import, Geograph's bot) are not one owner. A file is imported when its
    /// `Artist` links its author on another site (`flickr.com/people/…`, `geograph.org.uk/profile/…`) and neither links
    /// nor names the uploader; an uploader who spells their own name many ways, with no such link, is still one owner.
    /// The denylist still names uploaders (``uploader(_:)``).
    static func rankingOwner(uploader: String?, account: String?, artistHTML: String, artist: String) -> String? {
        guard !artist.isEmpty, Self.linksElsewhere(artistHTML) else { return account }
        if let uploader, !uploader.isEmpty {
            let named = uploader.replacingOccurrences(of: "_", with: " ").lowercased()
            let linked = artistHTML.replacingOccurrences(of: "_", with: " ").lowercased()
            if linked.contains("user:" + named) || artist.lowercased().contains(named) { return account }
        }
        return "commons-artist:" + String(artist.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ").prefix(120))
    }

    /// Whether HTML links a page off Wikimedia's sites (an `href` that ``WebURL`` reads, on another host).
    static func linksElsewhere(_ html: String) -> Bool {
        var rest = html[...]
        while let found = rest.range(of: "href=", options: .caseInsensitive) {
            rest = rest[found.upperBound...].drop { $0 == "\"" || $0 == "'" }
            let target = rest.prefix { $0 != "\"" && $0 != "'" && $0 != " " && $0 != ">" }
            if let url = WebURL(String(target)), !["wikimedia.org", "wikipedia.org", "wikidata.org"].contains(where: url.isOn) {
                return true
            }
        }
        return false
    }

    /// The uploader's account as the denylist names it (`commons-user:NAME`, or by number `commons-userid:N`): who a
    /// file counts as for the per-owner cap, not the free `Artist` text, which one uploader may spell many ways.
    static func uploader(_ info: CommonsSearchResponse.Info) -> String? {
        if let user = info.user, !user.isEmpty, user.count <= 85, user.utf8.count <= 255 {
            return "commons-user:\(user.replacingOccurrences(of: " ", with: "_"))"
        }
        return info.userid.map { "commons-userid:\($0)" }
    }

    /// The standard widths below the original's, each the API's own URL for that step when it gave one, else made from
    /// one it gave (``CommonsThumbnail``); and the original itself when it is no wider than the widest standard one (a
    /// file exactly 1920 px wide is served whole, not from the 1280 one). None made without a thumbnail to make it from.
    static func sizes(original: String, thumbnails: [CommonsThumbnail], width: Int, height: Int) -> [PhotoSize] {
        var sizes = [PhotoSize]()
        for standard in Self.standardWidths where standard < width {
            let given = thumbnails.first { $0.step == standard }?.url
            guard let url = given ?? thumbnails.first?.url(step: standard) else { break }
            sizes.append(PhotoSize(label: "\(standard)px", url: url, width: standard, height: max(1, (height * standard + width / 2) / width)))
        }
        if width <= Self.standardWidths[Self.standardWidths.count - 1] || sizes.isEmpty {
            sizes.append(PhotoSize(label: "original", url: original, width: width, height: height))
        }
        return sizes
    }

    /// The file's page: the API's `descriptionurl` when it is on commons.wikimedia.org over HTTPS, else made from its
    /// title (a link never leads to another host).
    static func pageURL(_ given: String?, title: String) -> String {
        if let given = given.flatMap(WebURL.init), given.scheme == "https", given.host == "commons.wikimedia.org", given.port == nil,
            given.rest.hasPrefix("/wiki/")
        {
            return given.text
        }
        let path = ("File:" + title).replacingOccurrences(of: " ", with: "_")
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~:_(),'!*"))
        return "https://commons.wikimedia.org/wiki/" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
    }

    /// `YYYY-MM-DD hh:mm:ss` (or without seconds) at the start of `text`, as ``ShownPhase`` reads it; nil otherwise, and
    /// for a date alone (``ShownPhase/clockTime(_:)``).
    static func exactTime(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 16 else { return nil }
        let head = String(decoding: bytes.prefix(19), as: UTF8.self)
        if bytes.count >= 19, bytes[16] == UInt8(ascii: ":") { return ShownPhase.clockTime(head) }
        return ShownPhase.clockTime(String(decoding: bytes.prefix(16), as: UTF8.self) + ":00")
    }

    /// A category's words, and each pair run together (`blue hour` gives `bluehour`), as tags are written.
    static func words(_ category: String) -> [String] {
        let words = category.split(whereSeparator: { !$0.isLetter }).map(String.init)
        return words + zip(words, words.dropFirst()).map { $0 + $1 }
    }
}
