import Foundation
import Hummingbird
import NIOCore

/// A finished background: its encoded image, the photo it shows, and the response headers it is served with (all but
/// `Cache-Control`, which depends on the moment), so that a hit costs no work beyond writing bytes.
package struct CachedRender: Sendable {
    package let body: ByteBuffer
    package let format: OutputFormat
    /// The checked cache file holding the same bytes, when it is held open: the transport may send the body from it
    /// with `sendfile` (see ``FileBodies``) instead of copying `body` into the socket.
    package let file: CachedFile?
    package let photo: SourcePhoto
    package let created: Date
    /// Strong validator derived from the bytes: CRC-32 and length.
    package let etag: String
    package let headers: HTTPFields

    init(body bytes: [UInt8], format: OutputFormat, photo: SourcePhoto, place: Place, created: Date, file: CachedFile? = nil) {
        self.body = ByteBuffer(bytes: bytes)
        self.format = format
        self.file = file?.payload.count == bytes.count ? file : nil
        self.photo = photo
        self.created = created
        self.etag = "\"\(String(CRC32.checksum(bytes), radix: 16))-\(String(bytes.count, radix: 16))\""
        var headers = BackdropHeaders.attribution(of: photo, place: place)
        headers[.contentType] = format.mediaType
        headers[.contentLength] = String(bytes.count)
        headers[.eTag] = self.etag
        headers[.lastModified] = HTTPDate.format(created)
        self.headers = headers
    }
}
