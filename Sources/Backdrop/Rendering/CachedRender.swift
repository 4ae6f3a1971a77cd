import Foundation
import Hummingbird
import NIOCore

/// A finished background: its encoded image, the photo it shows, and the response headers it is served with (all but
/// `Cache-Control`, which depends on the moment), so that a hit costs no work beyond writing bytes.
struct CachedRender: Sendable {
    package let body: ByteBuffer
    package let format: OutputFormat
    /// The checked cache file holding the same bytes, when it is held open: the transport may send the body from it
    /// with `sendfile` (see ``FileBodies``) instead of copying `body` into the socket.
    package private(set) var file: CachedFile?
    package let photo: SourcePhoto
    package let created: Date
    /// The body's CRC-32.
    let crc: UInt32
    /// Strong validator derived from the bytes: CRC-32 and length.
    package let etag: String
    package let headers: HTTPFields

    /// `body` as it will be sent, checksummed once: its CRC-32 makes the `ETag` and goes into its cache file's
    /// checksum (``crc``).
    init(body: ByteBuffer, format: OutputFormat, photo: SourcePhoto, place: Place, created: Date) {
        let length = body.readableBytes
        self.body = body
        self.format = format
        self.file = nil
        self.photo = photo
        self.created = created
        self.crc = CRC32.checksum(body)
        self.etag = "\"\(String(self.crc, radix: 16))-\(String(length, radix: 16))\""
        var headers = BackdropHeaders.attribution(of: photo, place: place)
        headers[.contentType] = format.mediaType
        headers[.contentLength] = String(length)
        headers[.eTag] = self.etag
        headers[.lastModified] = HTTPDate.format(created)
        self.headers = headers
    }

    /// The same render, its body also in `file` (when the file holds exactly the body).
    func with(file: CachedFile?) -> CachedRender {
        var copy = self
        copy.file = file?.payload.count == self.body.readableBytes ? file : nil
        return copy
    }
}
