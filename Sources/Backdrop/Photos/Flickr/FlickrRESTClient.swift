import AsyncHTTPClient

/// `flickr.photos.search` over REST with JSON (``JSONGet``).
struct FlickrRESTClient: FlickrSearching {
    let get: JSONGet
    let endpoint: String
    let apiKey: String
    let allowedLicenses: Set<Int>

    /// One search; throws ``FlickrError``, never naming the key.
    package func search(_ query: FlickrSearchQuery) async throws -> FlickrSearchResponse {
        let body: [UInt8]
        do {
            body = try await self.get.get(query.url(endpoint: self.endpoint, apiKey: self.apiKey))
        } catch let failure as JSONGet.Failure {
            switch failure {
            case .unreachable(let error), .cutOff(let error):
                throw FlickrError(.transient, "Flickr could not be reached: \(self.redacted(error))")
            case .status(let code, _): throw FlickrError.http(status: code)
            case .tooLarge: throw FlickrError(.malformed, "Flickr's answer is too large")
            case .timedOut: throw FlickrError(.transient, "Flickr did not answer within \(Int(total: self.get.timeout / .milliseconds(1))) ms")
            }
        }
        return try FlickrSearchResponse.parse(body, allowedLicenses: self.allowedLicenses)
    }

    /// An error's description with the key removed, in case a lower layer echoes the URL.
    private func redacted(_ text: String) -> String {
        self.apiKey.isEmpty ? text : text.replacingOccurrences(of: self.apiKey, with: "<key>")
    }
}

/// Searches Flickr; the seam tests can replace (they mostly use the real client against a stand-in server).
protocol FlickrSearching: Sendable {
    /// Throws `FlickrError`.
    func search(_ query: FlickrSearchQuery) async throws -> FlickrSearchResponse
}
