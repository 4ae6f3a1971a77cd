import AsyncHTTPClient
import NIOCore

/// `flickr.photos.search` over REST with JSON, through AsyncHTTPClient.
struct FlickrRESTClient: FlickrSearching {
    let http: HTTPClient
    let endpoint: String
    let apiKey: String
    let timeout: TimeAmount
    let allowedLicenses: Set<Int>

    package init(http: HTTPClient, endpoint: String, apiKey: String, timeout: TimeAmount, allowedLicenses: Set<Int>) {
        self.http = http
        self.endpoint = endpoint
        self.apiKey = apiKey
        self.timeout = timeout
        self.allowedLicenses = allowedLicenses
    }

    /// One search, within `timeout` for the whole exchange (the head and every byte of the body).
    package func search(_ query: FlickrSearchQuery) async throws -> FlickrSearchResponse {
        do {
            return try await withDeadline(.nanoseconds(self.timeout.nanoseconds)) { try await self.call(query) }
        } catch is DeadlinePassed {
            throw FlickrError(.transient, "Flickr did not answer within \(self.timeout.nanoseconds / 1_000_000) ms")
        }
    }

    private func call(_ query: FlickrSearchQuery) async throws -> FlickrSearchResponse {
        var request = HTTPClientRequest(url: query.url(endpoint: self.endpoint, apiKey: self.apiKey))
        request.headers.add(name: "User-Agent", value: "Backdrop/\(Backdrop.version)")
        request.headers.add(name: "Accept", value: "application/json")
        let body: ByteBuffer
        do {
            let response = try await self.http.execute(request, timeout: self.timeout)
            guard response.status == .ok else {
                _ = try? await response.body.collect(upTo: 64 << 10)
                throw FlickrError.http(status: Int(response.status.code))
            }
            body = try await response.body.collect(upTo: 4 << 20)
        } catch let error as FlickrError {
            throw error
        } catch let error as NIOTooManyBytesError {
            throw FlickrError(.malformed, "Flickr's answer is too large (\(error))")
        } catch {
            throw FlickrError(.transient, "Flickr could not be reached: \(self.redacted(error))")
        }
        return try FlickrSearchResponse.parse(Array(buffer: body), allowedLicenses: self.allowedLicenses)
    }

    /// An error's description with the key removed, in case a lower layer echoes the URL.
    private func redacted(_ error: any Error) -> String {
        let text = String(describing: error)
        return self.apiKey.isEmpty ? text : text.replacingOccurrences(of: self.apiKey, with: "<key>")
    }
}

/// Searches Flickr; the seam tests can replace (they mostly use the real client against a stand-in server).
protocol FlickrSearching: Sendable {
    /// Throws `FlickrError`.
    func search(_ query: FlickrSearchQuery) async throws -> FlickrSearchResponse
}
