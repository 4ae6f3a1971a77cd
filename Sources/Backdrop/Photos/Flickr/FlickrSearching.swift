import AsyncHTTPClient
import NIOCore

/// Searches Flickr; the seam tests can replace (they mostly use the real client against a stand-in server).
package protocol FlickrSearching: Sendable {
    /// Throws `FlickrError`.
    func search(_ query: FlickrSearchQuery) async throws -> FlickrSearchResponse
}
