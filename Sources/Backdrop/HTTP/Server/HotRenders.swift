import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import Synchronization

/// Backgrounds the connection answers by itself, without a trip through the router: the renders the route served
/// last whose PNG sits in an open cache file and whose photo is the place's photo for the whole window (never a
/// fallback, which must give way as soon as Flickr answers again).
///
/// A hit is a lookup by the normalised request (cell, window, size, style, blur): the same validation as the route,
/// the same headers and conditional handling, the body sent with `sendfile`. Everything else (misses, errors,
/// fallbacks, other routes) goes to Hummingbird. Entries hold response heads and files, not PNG bytes, and are
/// bounded in number; those of past windows are dropped as the next window fills.
public final class HotRenders: Sendable {
    struct Key: Hashable, Sendable {
        let place: Place
        let window: Int64
        let spec: RenderSpec
    }

    /// A request target reduced to what selects a render.
    private struct Target: Sendable {
        let place: Place
        let spec: RenderSpec
    }

    struct Entry: Sendable {
        /// Status line and headers, all but `Cache-Control`, `Date` and `Server`, for a 200 and a 304.
        let ok: ByteBuffer
        let notModified: ByteBuffer
        let etag: String
        let created: Date
        let file: CachedFile
        let source: String
        let cell: String
    }

    /// What the connection sends for a hit: `head` then the time-dependent headers, then the file for a GET's 200.
    struct Answer {
        let status: HTTPResponseStatus
        let head: ByteBuffer
        let maxAge: Int
        let file: CachedFile?
        let source: String
        let cell: String
    }

    private struct State {
        var entries = [Key: Entry]()
        var newestWindow = Int64.min
        /// Request targets already parsed, so that a repeat costs one dictionary lookup; only short ones of hits.
        var targets = [String: Target]()
    }

    private static let maxTargets = 4096
    private static let maxTargetLength = 256

    let limit: Int
    let clock: any WallClock
    let windowSeconds: Int
    let geohashPrecision: Int
    let defaults: RenderSpec
    private let state = Mutex(State())

    public init(limit: Int, clock: any WallClock, windowSeconds: Int, geohashPrecision: Int, defaults: RenderSpec) {
        self.limit = limit
        self.clock = clock
        self.windowSeconds = windowSeconds
        self.geohashPrecision = geohashPrecision
        self.defaults = defaults
    }

    public var count: Int { self.state.withLock { $0.entries.count } }

    /// Keeps `render` for answering at the connection, if it has an open file.
    func remember(_ render: CachedRender, place: Place, window: TimeWindow, spec: RenderSpec) {
        let entry = render.file.map { file in
            Entry(ok: Self.head(.ok, render.headers), notModified: Self.head(.notModified, render.headers.filter { $0.name != .contentLength }),
                  etag: render.etag, created: render.created, file: file, source: render.headers[BackdropHeaders.source] ?? "",
                  cell: place.key)
        }
        self.state.withLock { state in
            if window.index > state.newestWindow {
                state.newestWindow = window.index
                state.entries = state.entries.filter { $0.key.window >= window.index }
            }
            guard let entry, self.limit > 0 else { return }
            if state.entries.count >= self.limit, let any = state.entries.keys.first {
                state.entries.removeValue(forKey: any)
            }
            state.entries[Key(place: place, window: window.index, spec: spec)] = entry
        }
    }

    /// The answer to a `GET` or `HEAD` of `/background` when it is a hit; nil sends the request to the router.
    func answer(method: HTTPMethod, uri: String, headers: HTTPHeaders) -> Answer? {
        guard method == .GET || method == .HEAD, uri.utf8.starts(with: "/background?".utf8) || uri == "/background" else { return nil }
        let now = self.clock.now()
        let window = TimeWindow(containing: now, seconds: self.windowSeconds)
        let known = self.state.withLock { $0.targets[uri] }
        guard let target = known ?? self.target(uri),
              let entry = self.state.withLock({ $0.entries[Key(place: target.place, window: window.index, spec: target.spec)] })
        else { return nil }
        if known == nil, uri.utf8.count <= Self.maxTargetLength {
            self.state.withLock { state in
                if state.targets.count >= Self.maxTargets { state.targets.removeAll(keepingCapacity: true) }
                state.targets[uri] = target
            }
        }
        var conditions = HTTPFields()
        for (name, field) in [("If-None-Match", HTTPField.Name.ifNoneMatch), ("If-Modified-Since", .ifModifiedSince)] {
            let values = headers[name]
            if !values.isEmpty { conditions[field] = values.joined(separator: ", ") }
        }
        let notModified = BackgroundController.isNotModified(conditions, etag: entry.etag, lastModified: entry.created)
        return Answer(status: notModified ? .notModified : .ok, head: notModified ? entry.notModified : entry.ok,
                      maxAge: window.secondsLeft(at: now), file: notModified || method != .GET ? nil : entry.file,
                      source: entry.source, cell: entry.cell)
    }

    /// The route's validation of the query; nil for anything it would refuse.
    private func target(_ uri: String) -> Target? {
        let query = uri.firstIndex(of: "?").map { String(uri[uri.index(after: $0)...]) }
        guard let parsed = try? BackgroundQuery(query: query, defaults: self.defaults) else { return nil }
        return Target(place: BackgroundController.place(parsed.coordinate, precision: self.geohashPrecision), spec: parsed.spec)
    }

    private static func head(_ status: HTTPResponseStatus, _ fields: HTTPFields) -> ByteBuffer {
        var text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        for field in fields { text += "\(field.name.rawName): \(field.value)\r\n" }
        return ByteBuffer(string: text)
    }
}
