import HTTPTypes
import Hummingbird

/// The response headers that say where a background's photo came from.
enum BackdropHeaders {
    package static let source = header("X-Backdrop-Source")
    package static let photoID = header("X-Backdrop-Photo-Id")
    package static let credit = header("X-Backdrop-Credit")
    package static let title = header("X-Backdrop-Title")
    package static let author = header("X-Backdrop-Author")
    package static let license = header("X-Backdrop-License")
    package static let licenseURL = header("X-Backdrop-License-Url")
    package static let photoURL = header("X-Backdrop-Photo-Url")
    package static let cell = header("X-Backdrop-Cell")
    package static let link = header("Link")
    /// `X-Content-Type-Options`' value on every answer, the router's (``RequestLogMiddleware``) and the transport's.
    static let noSniff = "nosniff"
    /// W3C Trace Context's, read by ``TraceMiddleware``.
    static let traceparent = header("traceparent")
    /// Who a trusted proxy says the client is (``ClientAddress``).
    static let realIP = header("X-Real-IP")
    static let forwardedFor = header("X-Forwarded-For")

    /// The attribution headers' names, for `Access-Control-Expose-Headers`.
    static let attributionNames = [source, photoID, cell, credit, title, author, license, licenseURL, photoURL].map(\.rawName)
    /// What a script on another site may read of an answer (``CORSMiddleware``'s `Access-Control-Expose-Headers`),
    /// joined once rather than on every answer.
    static let exposedToScripts = (attributionNames + ["Link", "ETag", "Last-Modified", "Retry-After", "Vary"]).joined(separator: ", ")

    private static func header(_ name: String) -> HTTPField.Name {
        guard let field = HTTPField.Name(name) else { preconditionFailure("invalid header name \(name)") }
        return field
    }

    /// Every header a render is served with but `Cache-Control`, written once per render (``RenderHeaders``): where its
    /// photo came from, its type, length and validators.
    static func render(_ render: CachedRender) -> HTTPFields {
        var headers = Self.attribution(of: render.photo, place: render.place)
        headers[.contentType] = render.format.mediaType
        headers[.contentLength] = String(render.body.readableBytes)
        headers[.eTag] = render.etag
        headers[.lastModified] = HTTPDate.format(render.created)
        return headers
    }

    static func attribution(of photo: SourcePhoto, place: Place) -> HTTPFields {
        let credit = photo.attribution
        return [
            Self.source: photo.sourceLabel,
            Self.photoID: HeaderText.encode(photo.id),
            Self.cell: place.key,
            Self.credit: HeaderText.encode(credit.credit),
            Self.title: HeaderText.encode(credit.title),
            Self.author: HeaderText.encode(credit.author),
            Self.license: HeaderText.encode(credit.license),
            Self.licenseURL: HeaderText.encode(credit.licenseURL),
            Self.photoURL: HeaderText.encode(credit.sourceURL),
        ]
    }
}
