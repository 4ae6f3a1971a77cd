import Foundation
import Hummingbird
import NIOCore

/// A finished background: its PNG, the photo it shows, and the response headers it is served with (all but
/// `Cache-Control`, which depends on the moment), so that a hit costs no work beyond writing bytes.
public struct CachedRender: Sendable {
    public let png: ByteBuffer
    /// The checked cache file holding the same PNG, when it is held open: the connection then sends the body from it
    /// with `sendfile` instead of copying `png` into the socket.
    public let file: CachedFile?
    public let photo: SourcePhoto
    public let created: Date
    /// Strong validator derived from the bytes: CRC-32 and length.
    public let etag: String
    public let headers: HTTPFields

    init(png bytes: [UInt8], photo: SourcePhoto, place: Place, created: Date, file: CachedFile? = nil) {
        self.png = ByteBuffer(bytes: bytes)
        self.file = file?.payload.count == bytes.count ? file : nil
        self.photo = photo
        self.created = created
        self.etag = "\"\(String(CacheEntry.crc(bytes, 0), radix: 16))-\(String(bytes.count, radix: 16))\""
        var headers = BackdropHeaders.attribution(of: photo, place: place)
        headers[.contentType] = "image/png"
        headers[.contentLength] = String(bytes.count)
        headers[.eTag] = self.etag
        headers[.lastModified] = HTTPDate.format(created)
        self.headers = headers
    }
}

/// Identifies one rendered output: built from validated, normalised parameters only.
public struct RenderedImageKey: Sendable, Hashable {
    public let place: Place
    public let window: TimeWindow
    public let photo: SourcePhoto
    public let spec: RenderSpec

    public init(place: Place, window: TimeWindow, photo: SourcePhoto, spec: RenderSpec) {
        self.place = place
        self.window = window
        self.photo = photo
        self.spec = spec
    }

    // A photo is identified by its id (and whether it stands in stale); hashing its whole attribution each request is waste.
    public static func == (a: Self, b: Self) -> Bool {
        a.place == b.place && a.window == b.window && a.photo.id == b.photo.id && a.photo.stale == b.photo.stale && a.spec == b.spec
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.place)
        hasher.combine(self.window.index)
        hasher.combine(self.photo.id)
        hasher.combine(self.spec)
    }

    /// The disk cache key: a geohash, numbers, values from fixed sets, and a photo id of digits (checked when parsed).
    var diskKey: String {
        "render/\(self.place.key)/\(self.window.index)/\(self.photo.id)/\(self.spec.size)/\(self.spec.style.rawValue)/\(self.spec.blurHundredths)/png"
    }
}
