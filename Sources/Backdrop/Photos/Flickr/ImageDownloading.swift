import AsyncHTTPClient
import Foundation
import NIOCore

/// Fetches photo bytes. The seam tests can replace.
package protocol ImageDownloading: Sendable {
    /// Throws `DownloadError`.
    func download(_ url: String) async throws -> [UInt8]
}
