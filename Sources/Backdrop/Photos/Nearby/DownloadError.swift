import AsyncHTTPClient
import Foundation
import NIOCore

/// Why a download failed.
struct DownloadError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable, Equatable {
        /// The URL, a redirect or the host's address is not allowed.
        case refused
        /// Over the size cap, or not a JPEG.
        case unacceptable
        /// Network errors, timeouts, HTTP errors.
        case failed
        /// The host asked to wait (`429`, `503`), or is still paused (``MediaHostPauses``): the photo is not at fault.
        case throttled
    }

    package let kind: Kind
    package let message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = String(message.prefix(200))
    }

    package var description: String { self.message }
}
