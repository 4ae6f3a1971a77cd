import Foundation
import Hummingbird
import Logging
import NIOPosix

/// Serves the public folder (`GET`/`HEAD`) for any path no route answers, in place of Hummingbird's `FileMiddleware`,
/// whose byte ranges are wrong (a suffix range served as a prefix, a range past the end answered 206 with an invalid
/// `Content-Range`, no `Content-Range` on 416) and which redirects folders. Here:
/// - a file is served only if its real path (symbolic links resolved) lies inside the folder's real path;
/// - no hidden file: a path with any segment starting with `.` (`/.env`, `/%2Eenv`, `/.git/config`) is a 404;
/// - `/` serves `index.html`; any other folder is a 404, with or without its slash (no redirect);
/// - `ETag` (strong: modification time and size, as nginx makes it), `Last-Modified`, 304s for `If-None-Match` (weak
///   comparison) or `If-Modified-Since`;
/// - ranges as RFC 9110 reads them (``ByteRange``): one `bytes` range served as 206, suffixes and clamped ends, 416
///   with `Content-Range: bytes */length` when nothing of the file is in it, anything else ignored (the whole file),
///   and `If-Range` honoured (strong comparison, or the exact date).
struct PublicFiles<Context: RequestContext>: RouterMiddleware {
    let files: LocalFileSystem
    let root: String

    init(folder: String, logger: Logger) {
        self.files = LocalFileSystem(rootFolder: folder, threadPool: .singleton, logger: logger)
        self.root = folder
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError where error.status == .notFound {
            guard request.method == .get || request.method == .head, let response = try await self.serve(request, context: context) else {
                throw error
            }
            return response
        }
    }

    private func serve(_ request: Request, context: Context) async throws -> Response? {
        guard let path = request.uri.path.removingPercentEncoding,
            !path.split(separator: "/").contains(where: { $0.hasPrefix(".") }),
            let id = self.files.getFileIdentifier(path == "/" ? "/index.html" : path),
            let attributes = try await self.attributesInside(id), !attributes.isFolder
        else { return nil }
        var headers = HTTPFields()
        let length = attributes.size
        let modified = attributes.modificationDate
        let etag = "\"\(String(Int64(total: modified.timeIntervalSince1970), radix: 16))-\(String(length, radix: 16))\""
        let lastModified = HTTPDate.format(modified)
        headers[.eTag] = etag
        headers[.lastModified] = lastModified
        headers[.acceptRanges] = "bytes"
        if let type = (id as NSString).pathExtension.nonEmpty.flatMap({ MediaType.getMediaType(forExtension: $0) }) {
            headers[.contentType] = type.description
        }
        if ConditionalRequest.isNotModified(request.headers, etag: etag, lastModified: modified) {
            return Response(status: .notModified, headers: headers)
        }
        var range = ByteRange.whole
        if request.method == .get, let ifRange = request.headers[.ifRange], ifRange != etag, ifRange != lastModified {
            range = .whole  // the file changed since the client's copy: all of it, not a part to splice into the old one
        } else if request.method == .get {
            range = ByteRange(header: request.headers[.range], length: length)
        }
        switch range {
        case .unsatisfiable:
            throw APIError(
                status: .rangeNotSatisfiable,
                message: "the range asked for is outside the file (\(length) bytes)",
                headers: [.contentRange: "bytes */\(length)", .acceptRanges: "bytes"]
            )
        case .part(let bytes):
            headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(length)"
            headers[.contentLength] = String(bytes.count)
            return Response(status: .partialContent, headers: headers, body: try await self.files.loadFile(id: id, range: bytes, context: context))
        case .whole:
            headers[.contentLength] = String(length)
            guard request.method == .get else { return Response(status: .ok, headers: headers) }
            return Response(status: .ok, headers: headers, body: try await self.files.loadFile(id: id, context: context))
        }
    }

    /// The file's attributes, if its real path lies inside the public folder's real path.
    private func attributesInside(_ id: LocalFileSystem.FileIdentifier) async throws -> LocalFileSystem.FileAttributes? {
        let root = self.root
        let inside = try await NIOThreadPool.singleton.runIfActive { () -> Bool in
            let base = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
            let resolved = URL(fileURLWithPath: id).resolvingSymlinksInPath().path
            return resolved == base || resolved.hasPrefix(base.hasSuffix("/") ? base : base + "/")
        }
        guard inside else { return nil }
        return try await self.files.getAttributes(id: id)
    }
}

extension String {
    fileprivate var nonEmpty: String? { self.isEmpty ? nil : self }
}
