import Foundation
import HTTPTypes

/// HTTP's conditional GET, the one implementation for renders and static files alike: whether a client's copy (by
/// `If-None-Match`, else `If-Modified-Since`) is still the current one, so that the answer is a 304.
enum ConditionalRequest {
    /// `If-None-Match` (weak comparison, as RFC 9110 asks for it) wins over `If-Modified-Since`.
    static func isNotModified(_ headers: HTTPFields, etag: String, lastModified: Date) -> Bool {
        if let tags = headers[.ifNoneMatch] {
            return tags.split(separator: ",").contains { tag in
                let tag = tag.trimmingCharacters(in: .whitespaces)
                return tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == etag
            }
        }
        if let since = headers[.ifModifiedSince].flatMap(HTTPDate.parse) {
            return lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        }
        return false
    }
}
