import AsyncHTTPClient
import Foundation
import NIOCore

/// Why a download failed.
public struct DownloadError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The URL, a redirect or the host's address is not allowed.
        case refused
        /// Over the size cap, or not a JPEG.
        case unacceptable
        /// Network errors, timeouts, HTTP errors.
        case failed
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = String(message.prefix(200))
    }

    public var description: String { self.message }
}
