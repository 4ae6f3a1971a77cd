import Foundation

/// One Commons file as Backdrop serves it: its credit in plain text, its sizes in Wikimedia's standard thumbnail
/// widths, and what the ranking reads (its sky, setting, assessments, personality rights). Nil for anything but a large
/// enough JPEG under a licence served, and for a file whose categories ``KeptOut`` names.
struct CommonsFile {
    /// The thumbnail widths Wikimedia renders and caches for everyone; other widths are refused by its servers.
    static let standardWidths = [960, 1280, 1920]
    /// The width a search asks `iiurlwidth` for: its `thumburl` is the pattern for the others.
    static let askedWidth = 1280
    /// The standard width whose thumbnail's look is hashed (``CandidateLooks``): about 5 kB.
    static let lookWidth = 120

    let photo: SourcePhoto
    let facts: RankingCandidate
    /// Its thumbnail ``lookWidth`` px wide, when the search gave the thumbnails' pattern.
    let thumbnail: String?

    init?(_ page: CommonsSearchResponse.Page, order: Int, near cell: Geohash, keepOut: KeptOut = KeptOut()) {
        guard let info = page.imageinfo?.first, info.mime == "image/jpeg", let width = info.width, let height = info.height,
            max(width, height) >= CommonsSearchResponse.minimumLongSide, let original = info.url, Self.isWeb(original),
            let pageURL = info.descriptionurl, pageURL.hasPrefix("https://")
        else { return nil }
        let meta = { (key: String) in info.extmetadata?[key]?.text ?? "" }
        guard
            let license = CommonsLicense(code: meta("License"), url: meta("LicenseUrl"))
        else { return nil }
        let sizes = Self.sizes(original: original, thumb: info.thumburl, width: width, height: height)
        guard !sizes.isEmpty else { return nil }
        self.thumbnail = Self.thumbnail(info.thumburl, width: Self.lookWidth)
        let name = page.title.hasPrefix("File:") ? String(page.title.dropFirst(5)) : page.title
        let objectName = PlainText.from(html: meta("ObjectName"), limit: 120)
        let attribution = PlainText.from(html: meta("Attribution"))
        let artist = PlainText.from(html: meta("Artist"))
        let title = !objectName.isEmpty ? objectName : PlainText.line(String(name.prefix { $0 != "." }), limit: 120)
        let author = !attribution.isEmpty ? attribution : !artist.isEmpty ? artist : "Unknown author"
        let latitude = Double(meta("GPSLatitude"))
        let longitude = Double(meta("GPSLongitude"))
        let taken = PlainText.from(html: meta("DateTimeOriginal"), limit: 40)
        let categories = meta("Categories").split(separator: "|").map { $0.lowercased() }
        guard keepOut.reason(categories: categories) == nil else { return nil }
        let words = categories.flatMap(Self.words)
        // `Assessments` and `Restrictions` are lists such as `featured|quality` and `personality|trademarked`.
        let names = { (key: String) in Set(meta(key).lowercased().split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }) }
        let assessments = names("Assessments")
        let assessment = ["featured", "quality", "valued"].first { assessments.contains($0) }
        let restrictions = names("Restrictions")
        let shown: SunPhase?
        let exact = Self.exactTime(taken)
        if let exact {
            // A file with no position was found near the cell's centre: its clock is read there.
            let centre = cell.centre
            shown =
                ShownPhase.phase(taken: exact, latitude: latitude ?? centre.latitude, longitude: longitude ?? centre.longitude)
                ?? CategoryPhrases.phase(categories)
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
                sourceURL: pageURL
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
            owner: self.photo.owner ?? (artist.isEmpty ? self.photo.id : artist),
            shown: shown,
            setting: indoors ? .indoors : outdoors ? .outdoors : .unsaid,
            accuracy: latitude != nil ? 16 : 11,
            order: order,
            width: width,
            height: height,
            assessment: assessment.map { ["valued": 1, "quality": 2, "featured": 3][$0] ?? 0 },
            people: restrictions.contains("personality") ? true : nil,
            taken: exact.flatMap(ShownPhase.seconds)
        )
    }

    var candidate: CandidatePhoto { CandidatePhoto(photo: self.photo, facts: self.facts, thumbnail: self.thumbnail) }

    /// The uploader's account as the denylist names it (`commons-user:NAME`, or by number `commons-userid:N`): who a
    /// file counts as for the per-owner cap, not the free `Artist` text, which one uploader may spell many ways.
    static func uploader(_ info: CommonsSearchResponse.Info) -> String? {
        if let user = info.user, !user.isEmpty, user.utf8.count <= 85 { return "commons-user:\(user.replacingOccurrences(of: " ", with: "_"))" }
        return info.userid.map { "commons-userid:\($0)" }
    }

    /// The standard widths below the original's (from the asked thumbnail's URL), and the original itself when it is
    /// no wider than the widest standard one (a file exactly 1920 px wide is served whole, not from the 1280 one).
    static func sizes(original: String, thumb: String?, width: Int, height: Int) -> [PhotoSize] {
        var sizes = [PhotoSize]()
        for standard in Self.standardWidths where standard < width {
            guard let url = Self.thumbnail(thumb, width: standard) else { break }
            sizes.append(PhotoSize(label: "\(standard)px", url: url, width: standard, height: (height * standard + width / 2) / width))
        }
        if width <= Self.standardWidths[Self.standardWidths.count - 1] || sizes.isEmpty {
            sizes.append(PhotoSize(label: "original", url: original, width: width, height: height))
        }
        return sizes
    }

    /// The thumbnail `width` px wide, from the pattern of the one the search asked for (nil when it gave none: the file
    /// is no wider than that).
    static func thumbnail(_ thumb: String?, width: Int) -> String? {
        guard let thumb, Self.isWeb(thumb), thumb.contains("/\(Self.askedWidth)px-") else { return nil }
        return thumb.replacingOccurrences(of: "/\(Self.askedWidth)px-", with: "/\(width)px-")
    }

    /// An absolute web URL; which hosts may be fetched, and over what, the download's ``ImageHostPolicy`` decides.
    static func isWeb(_ url: String) -> Bool { url.hasPrefix("https://") || url.hasPrefix("http://") }

    /// `YYYY-MM-DD hh:mm:ss` (or without seconds) at the start of `text`, as ``ShownPhase`` reads it; nil otherwise.
    static func exactTime(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 16 else { return nil }
        let head = String(decoding: bytes.prefix(19), as: UTF8.self)
        if bytes.count >= 19, bytes[16] == UInt8(ascii: ":"), ShownPhase.seconds(head) != nil { return head }
        let minutes = String(decoding: bytes.prefix(16), as: UTF8.self) + ":00"
        return ShownPhase.seconds(minutes) != nil ? minutes : nil
    }

    /// A category's words, and each pair run together (`blue hour` gives `bluehour`), as tags are written.
    static func words(_ category: String) -> [String] {
        let words = category.split(whereSeparator: { !$0.isLetter }).map(String.init)
        return words + zip(words, words.dropFirst()).map { $0 + $1 }
    }
}
