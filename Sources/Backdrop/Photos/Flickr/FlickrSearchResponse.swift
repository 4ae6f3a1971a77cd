import Foundation

/// Reads a `flickr.photos.search` answer the way real Flickr writes it: numbers sometimes as strings, `url_*`
/// keys missing for sizes a photo lacks, `ownername`/`pathalias` rather than the extras' names, `pathalias` null,
/// errors as HTTP 200 with `stat: fail`, and (by mistake) a JSONP `jsonFlickrApi(...)` wrapper.
package struct FlickrSearchResponse: Sendable, Equatable {
    package let total: Int
    /// Results that can be used: a known licence from `allowedLicenses` (never NoDerivs) and a size of at least 1024 px.
    package let photos: [FlickrPhoto]

    package static let minimumLongSide = 1024
    /// The largest side a size may claim: a larger one is a field no camera wrote.
    static let largestSide = 100_000

    package static func parse(_ body: [UInt8], allowedLicenses: Set<Int>) throws(FlickrError) -> FlickrSearchResponse {
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: Data(Self.unwrapJSONP(body)))
        } catch {
            throw FlickrError(.malformed, "Flickr's answer is not JSON")
        }
        guard case .object(let root) = json else { throw FlickrError(.malformed, "Flickr's answer is not a JSON object") }
        guard let stat = root["stat"]?.text else { throw FlickrError(.malformed, "Flickr's answer has no stat") }
        if stat != "ok" {
            throw FlickrError.api(code: root["code"]?.integer ?? -1, message: root["message"]?.text ?? "no message")
        }
        guard case .object(let page)? = root["photos"] else { throw FlickrError(.malformed, "Flickr's answer has no photos") }
        let items: [JSONValue]
        switch page["photo"] {
        case .array(let array)?: items = array
        case nil, .null?: items = []
        default: throw FlickrError(.malformed, "Flickr's photo list is not an array")
        }
        let photos = items.enumerated().compactMap { order, item in Self.photo(item, order: order, allowedLicenses: allowedLicenses) }
        return FlickrSearchResponse(total: page["total"]?.integer ?? photos.count, photos: photos)
    }

    private static func photo(_ value: JSONValue, order: Int, allowedLicenses: Set<Int>) -> FlickrPhoto? {
        guard case .object(let fields) = value,
            let id = fields["id"]?.text, !id.isEmpty, id.utf8.count <= 32, id.utf8.allSatisfy({ (48...57).contains($0) }),
            let owner = fields["owner"]?.text, !owner.isEmpty,
            let licenseID = fields["license"]?.integer,
            allowedLicenses.contains(licenseID), !FlickrLicense.noDerivatives.contains(licenseID),
            let license = FlickrLicense.named(licenseID)
        else { return nil }
        let sizes = FlickrSearchQuery.sizeLabels.compactMap { label -> PhotoSize? in
            guard let url = fields["url_\(label)"]?.text.flatMap(WebURL.init),
                let width = fields["width_\(label)"]?.integer, let height = fields["height_\(label)"]?.integer,
                (1...Self.largestSide).contains(width), (1...Self.largestSide).contains(height)
            else { return nil }
            return PhotoSize(label: label, url: url.text, width: width, height: height)
        }.sorted { $0.longSide < $1.longSide }
        guard let largest = sizes.last, largest.longSide >= Self.minimumLongSide else { return nil }
        var photo = FlickrPhoto(
            id: id,
            owner: owner,
            ownerName: (fields["ownername"] ?? fields["owner_name"])?.text ?? "",
            pathAlias: (fields["pathalias"] ?? fields["path_alias"])?.text,
            title: fields["title"]?.text ?? "",
            license: license,
            sizes: sizes,
            facts: Self.facts(fields, order: order)
        )
        if let thumbnail = fields["url_\(FlickrSearchQuery.thumbnailLabel)"]?.text.flatMap(WebURL.init) { photo.thumbnail = thumbnail.text }
        return photo
    }

    /// The ranking's extras, each in whichever form Flickr sent it (numbers as numbers or strings, absent, empty).
    private static func facts(_ fields: [String: JSONValue], order: Int) -> FlickrPhotoFacts {
        var facts = FlickrPhotoFacts()
        facts.order = order
        if let taken = fields["datetaken"]?.text.flatMap(ShownPhase.clockTime), fields["datetakengranularity"]?.integer ?? 0 == 0,
            fields["datetakenunknown"]?.integer ?? 0 == 0
        {
            facts.exactTaken = taken  // a date alone (`00:00:00`) is not exact
        }
        facts.tags = (fields["tags"]?.text ?? "").split(separator: " ").prefix(100).map { $0.lowercased() }
        facts.context = fields["context"]?.integer ?? 0
        facts.accuracy = min(max(fields["accuracy"]?.integer ?? 0, 0), 16)
        if facts.accuracy > 0, let latitude = fields["latitude"]?.number, let longitude = fields["longitude"]?.number,
            (-90...90).contains(latitude), (-180...180).contains(longitude), latitude != 0 || longitude != 0
        {
            (facts.latitude, facts.longitude) = (latitude, longitude)
        }
        facts.views = max(0, fields["views"]?.integer ?? 0)
        if let width = fields["o_width"]?.integer, let height = fields["o_height"]?.integer, (1...Self.largestSide).contains(width),
            (1...Self.largestSide).contains(height)
        {
            (facts.originalWidth, facts.originalHeight) = (width, height)
        }
        return facts
    }

    /// `jsonFlickrApi({...})` (what Flickr sends without `nojsoncallback=1`) becomes `{...}`.
    static func unwrapJSONP(_ body: [UInt8]) -> [UInt8] {
        let prefix = Array("jsonFlickrApi(".utf8)
        var start = body.startIndex
        while start < body.endIndex, body[start] == 0x20 || body[start] == 0x0A || body[start] == 0x0D || body[start] == 0x09 { start += 1 }
        guard body[start...].starts(with: prefix) else { return body }
        var end = body.endIndex
        while end > start, [0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ";")].contains(body[end - 1]) { end -= 1 }
        guard end > start + prefix.count, body[end - 1] == UInt8(ascii: ")") else { return body }
        return Array(body[(start + prefix.count)..<(end - 1)])
    }
}

extension JSONValue {
    /// A string, or a number written as one (Flickr mixes both).
    var text: String? {
        switch self {
        case .string(let string): string
        case .number(let number): number.rounded() == number && abs(number) < 1e15 ? String(Int64(total: number)) : String(number)
        default: nil
        }
    }

    /// A number, or a string holding one.
    var number: Double? {
        switch self {
        case .number(let number): number.isFinite ? number : nil
        case .string(let string): Double(string.trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite ? $0 : nil }
        default: nil
        }
    }

    /// A whole number, or a string holding one.
    var integer: Int? {
        switch self {
        case .number(let number): number.rounded() == number && abs(number) < 1e15 ? Int(total: number) : nil
        case .string(let string): Int(string.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }
}
