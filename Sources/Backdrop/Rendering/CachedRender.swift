import Foundation
import HTTPTypes
import NIOCore

/// The response headers a render is served with but `Cache-Control`, written once when the render is made or read
/// from disk: the HTTP room says them (``BackdropHeaders/render(_:)``).
typealias RenderHeaders = @Sendable (CachedRender) -> HTTPFields

/// A finished background: its encoded image, the photo it shows, and the response headers it is served with (all but
/// `Cache-Control`, which depends on the moment), so that a hit costs no work beyond writing bytes.
struct CachedRender: Sendable {
    package let body: ByteBuffer
    package let format: OutputFormat
    /// The checked cache file holding the same bytes, when it is held open: the transport may send the body from it
    /// with `sendfile` (see ``FileBodies``) instead of copying `body` into the socket.
    package private(set) var file: CachedFile?
    package let photo: SourcePhoto
    package let place: Place
    package let created: Date
    /// The body's CRC-32.
    let crc: UInt32
    /// Strong validator derived from the bytes: CRC-32 and length.
    package let etag: String
    package private(set) var headers: HTTPFields

    /// `body` as it will be sent, checksummed once: its CRC-32 makes the `ETag` and goes into its cache file's
    /// checksum (``crc``); `place` is the place asked for, the photo's near it.
    init(body: ByteBuffer, format: OutputFormat, photo: SourcePhoto, place: Place, created: Date, headers: RenderHeaders) {
        let length = body.readableBytes
        self.body = body
        self.format = format
        self.file = nil
        self.photo = photo
        self.created = created
        self.crc = CRC32.checksum(body)
        self.etag = "\"\(String(self.crc, radix: 16))-\(String(length, radix: 16))\""
        self.place = place
        self.headers = [:]
        self.headers = headers(self)
    }

    /// The same render, its body also in `file` (when the file holds exactly the body).
    func with(file: CachedFile?) -> CachedRender {
        var copy = self
        copy.file = file?.payload.count == self.body.readableBytes ? file : nil
        return copy
    }
}
