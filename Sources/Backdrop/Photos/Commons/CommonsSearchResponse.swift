import Foundation

/// A Commons geosearch answer (`formatversion=2`) read into candidates: JPEG photographs with a long side of at least
/// 1024 px under a licence that allows modified copies (``CommonsLicense``), each with its credit in plain text and
/// what the ranking reads (the time taken, categories, where the camera stood). Fields arrive as strings or numbers, or
/// not at all; a file that lacks what it needs, or cannot be read (a field of the wrong type, a metadata value over
/// ``longestField``), is skipped, never the whole answer.
enum CommonsSearchResponse {
    struct Answer: Decodable {
        struct Failure: Decodable {
            let code: String
            let info: String?
        }

        /// Its pages: an array in `formatversion=2` (what Backdrop asks for), an object keyed by page id in version 1.
        struct Query: Decodable {
            let pages: [Readable<Page>]?

            enum Keys: String, CodingKey { case pages }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Keys.self)
                if let list = try? container.decodeIfPresent([Readable<Page>].self, forKey: .pages) {
                    self.pages = list
                } else {
                    self.pages = try container.decodeIfPresent([String: Readable<Page>].self, forKey: .pages).map { Array($0.values) }
                }
            }
        }

        let error: Failure?
        let query: Query?
    }

    struct Page: Decodable {
        let pageid: Int
        let title: String
        let index: Int?
        let imageinfo: [Info]?
        /// The assessment categories it is in, of those the query names (`clcategories`): matched exactly by MediaWiki.
        let categories: [Category]?
        /// Where the camera stood, when the query asks `prop=coordinates` (recorded answers do).
        let coordinates: [Coordinates]?
    }

    struct Category: Decodable { let title: String }

    struct Coordinates: Decodable {
        let lat: Double
        let lon: Double
    }

    struct Info: Decodable {
        let width: Int?
        let height: Int?
        let url: String?
        let thumburl: String?
        /// The thumbnails for screens 1.5 and 2 times as dense (`"1.5"`, `"2"`), when the asked width has them.
        let responsiveUrls: [String: String]?
        let descriptionurl: String?
        let mime: String?
        /// The uploader's account: who the per-owner cap and `photos.deny` count a file as.
        let user: String?
        let userid: Int?
        let extmetadata: [String: Field]?
    }

    /// An `extmetadata` entry: its value as text, whatever JSON type it came as; one longer than ``longestField``
    /// makes its file unreadable.
    struct Field: Decodable {
        let text: String?

        enum Keys: String, CodingKey { case value }

        struct TooLong: Error {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            if let text = try? container.decode(String.self, forKey: .value) {
                guard text.utf8.count <= CommonsSearchResponse.longestField else { throw TooLong() }
                self.text = text
            } else if let number = try? container.decode(Double.self, forKey: .value) {
                self.text = String(number)
            } else {
                self.text = nil
            }
        }
    }

    /// One element of a list, or nil when it cannot be read: the list's other elements are kept.
    struct Readable<Element: Decodable>: Decodable {
        let element: Element?

        init(from decoder: any Decoder) throws {
            self.element = try? Element(from: decoder)
        }
    }

    /// The longest metadata value read, in bytes: a credit or a category list is a few hundred.
    static let longestField = 64 << 10

    /// How long the whole source pauses after a rate-limit error sent in a 200 answer, in seconds: a minute when this
    /// client is rate limited, 5 s while Commons' replicas lag (what `maxlag` asks a bot to wait).
    static let pauses: [String: Double] = ["ratelimited": 60, "maxlag": 5]

    /// Files whose long side is shorter are skipped: too small for a phone screen's crop.
    static let minimumLongSide = 1024

    /// The answer's usable files, in the order geosearch gave them (`index`, nearest first); throws ``CommonsError``.
    /// Files whose categories ``KeptOut`` names are left out.
    static func parse(_ body: [UInt8], near cell: Geohash, keepOut: KeptOut = KeptOut()) throws(CommonsError) -> [CandidatePhoto] {
        let answer: Answer
        do {
            answer = try JSONDecoder().decode(Answer.self, from: Data(body))
        } catch {
            throw CommonsError(.malformed, "Commons' answer is not the JSON expected")
        }
        if let failure = answer.error {
            let transient = ["maxlag", "ratelimited", "readonly", "internal_api_error_DBQueryError"].contains(failure.code)
            throw CommonsError(
                transient ? .transient : .failed,
                "Commons error \(PlainText.line(failure.code, limit: 40)): \(PlainText.from(html: failure.info ?? "", limit: 120))",
                retryAfter: Self.pauses[failure.code]
            )
        }
        let pages = (answer.query?.pages ?? []).compactMap(\.element).sorted { ($0.index ?? $0.pageid) < ($1.index ?? $1.pageid) }
        return pages.enumerated().compactMap { order, page in CommonsFile(page, order: order, near: cell, keepOut: keepOut)?.candidate }
    }
}
