/// Why a Flickr call failed. The description never contains the API key or request URL.
package struct FlickrError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable, Equatable {
        /// Code 100: the key is wrong; retried at most once a minute.
        case invalidKey
        /// Worth retrying later: codes 0, 105, 201, HTTP 429 and 5xx, timeouts, connection failures.
        case transient
        /// An answer that is not Flickr's JSON.
        case malformed
        /// Any other `stat: fail` or HTTP status.
        case failed
    }

    let kind: Kind
    package let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = String(message.prefix(200))
    }

    /// Maps a `{"stat": "fail", "code": N}` answer.
    static func api(code: Int, message: String) -> FlickrError {
        switch code {
        case 100: FlickrError(.invalidKey, "Flickr code 100: \(message)")
        case 0, 105, 201: FlickrError(.transient, "Flickr code \(code): \(message)")
        default: FlickrError(.failed, "Flickr code \(code): \(message)")
        }
    }

    static func http(status: Int) -> FlickrError {
        status == 429 || status >= 500
            ? FlickrError(.transient, "Flickr answered HTTP \(status)") : FlickrError(.failed, "Flickr answered HTTP \(status)")
    }

    package var description: String { self.message }
}

extension FlickrError {
    var metricLabel: String {
        switch self.kind {
        case .invalidKey: "invalid_key"
        case .transient: "transient"
        case .malformed: "malformed"
        case .failed: "failed"
        }
    }
}
