import CoreMetrics
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Cache hits as the route answered them, kept so that ``HitReplayHandler`` can send the same answer again beneath
/// Hummingbird's router: what the route and its middleware built (its head, the two headers that change with time made
/// anew) and
/// the cache file it was sent from.
///
/// A replay stands for exactly one request: the same target (path and query, byte for byte), the same `Accept` (it
/// chooses the format when the query does not) and the same `Origin` (CORS), with no validators (a conditional request
/// may be a 304). It serves only until the answer's window ends (the route offers no replay of a stand-in for the
/// real photo, which must be asked for again), and only while its render's cache file is open: a render that left
/// the memory cache closes it, and the route answers again. `Date` and `Cache-Control` are made anew for each replay, `Cache-Control` by the route's own code.
///
/// The table holds at most ``limit`` replays (a replay is a few hundred bytes of headers, never the image); a new one
/// takes the place of an expired or a dead one among the first few, else of any. Beside it, at most ``limit`` request
/// heads, each the exact bytes of a head that was decoded and replayed (at most ``HeadBytes/longest`` bytes), and the
/// replay it stands for: ``HitBytesHandler`` answers the same bytes again without decoding them.
final class HitReplays: Sendable {
    /// What a replay stands for.
    struct Key: Hashable, Sendable {
        let target: String
        let accept: String?
        let origin: String?
    }

    /// What the route says of an answer it offers for replay.
    struct Terms: Sendable {
        /// The answer may be replayed until then: its `max-age` from when it was made (its window's end).
        let until: Date
        /// `Cache-Control` at a moment, as the route writes it.
        let cacheControl: @Sendable (Date) -> String
        /// The photo's source and cell, for the log.
        let source: String?
        let cell: String?
        /// The answer's counts: under its route (a 200), and as an image of its format.
        let counts: BackdropMetrics.RequestCounts
        let image: CoreMetrics.Counter

        init(
            until: Date,
            cacheControl: @escaping @Sendable (Date) -> String,
            route: String,
            format: String,
            source: String?,
            cell: String?,
            metrics: BackdropMetrics
        ) {
            self.until = until
            self.cacheControl = cacheControl
            self.source = source
            self.cell = cell
            self.counts = metrics.requestCounts(route: route, status: 200)
            self.image = metrics.imageCounter(format, status: 200)
        }

        /// A replay's log lines and counts, as the router writes its answers' (``RequestLog``), for `target` begun at
        /// `start`; `undecoded` when answered from the request's bytes (``HitBytesHandler``).
        func logged(target: String, since start: ContinuousClock.Instant, undecoded: Bool, logger: Logger, metrics: BackdropMetrics) {
            // Up to the query, found among the bytes: a Character at a time was a few percent of a replay's time.
            let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target[...]
            RequestLog.started(method: "GET", path: path, logger: logger)
            self.image.increment()
            metrics.replayed(undecoded: undecoded)
            RequestLog.finished(
                method: "GET",
                path: path,
                status: 200,
                elapsed: ContinuousClock.now - start,
                source: self.source,
                cell: self.cell,
                logger: logger,
                counts: self.counts
            )
        }
    }

    /// One answer to send again.
    struct Replay: Sendable {
        /// The route's head as it went out, but for `Connection` (the transport's, per request).
        private let fields: [(String, String)]
        /// The same head as NIO's encoder writes it, in pieces around the two values made anew, and as last made.
        private let wire: [WirePiece]
        private var wireCache = WireCache()
        /// Where `Date` and `Cache-Control` stand in it, to be written anew.
        private let date: Int?
        private let cacheControl: Int?
        let terms: Terms
        private let file: WeakFile

        init(head: HTTPHeaders, file: CachedFile, terms: Terms) {
            let fields = head.filter { $0.name.lowercased() != "connection" }.map { ($0.name, $0.value) }
            self.fields = fields
            self.date = fields.firstIndex { $0.0.lowercased() == "date" }
            self.cacheControl = fields.firstIndex { $0.0.lowercased() == "cache-control" }
            self.terms = terms
            self.file = WeakFile(file: file)
            self.wire = WirePiece.pieces(fields, date: self.date, cacheControl: self.cacheControl)
        }

        /// The same replay with a head cache of its own, for another event loop's table (``LoopReplays``): each
        /// loop's copy makes its head bytes under its own lock.
        func copied() -> Replay {
            var copy = self
            copy.wireCache = WireCache()
            return copy
        }

        /// The head to send at `now`: the route's, its `Date` and `Cache-Control` made anew, each where it stood.
        func headers(date: String, at now: Date) -> HTTPHeaders {
            var fields = self.fields
            let cacheControl = self.terms.cacheControl(now)
            if let index = self.date { fields[index].1 = date } else { fields.append(("Date", date)) }
            if let index = self.cacheControl { fields[index].1 = cacheControl } else { fields.append(("Cache-Control", cacheControl)) }
            return HTTPHeaders(fields)
        }

        /// ``headers(date:at:)`` as the bytes NIO's HTTP/1 encoder writes for them in a 200, `Date` written by
        /// `date`. Made once a second: both values change only with the second (a window ends on a whole second).
        func wireHead(at now: Date, date: (Date) -> String) -> ByteBuffer {
            let second = Int(total: now.timeIntervalSince1970.rounded(.down))
            return self.wireCache.head.withLock { cached in
                if let cached, cached.second == second { return cached.head }
                let cacheControl = self.terms.cacheControl(now)
                var buffer = ByteBufferAllocator().buffer(capacity: 512)
                for piece in self.wire {
                    switch piece {
                    case .bytes(let bytes): buffer.writeBytes(bytes)
                    case .date: buffer.writeString(date(now))
                    case .cacheControl: buffer.writeString(cacheControl)
                    }
                }
                cached = (second, buffer)
                return buffer
            }
        }

        /// The cache file, while its render is still held and the file open.
        var openFile: CachedFile? {
            guard let file = self.file.file, file.isOpen else { return nil }
            return file
        }
    }

    /// A piece of a head's bytes: as recorded, or one of the values made anew.
    private enum WirePiece: Sendable {
        case bytes([UInt8])
        case date
        case cacheControl

        /// `fields` after a 200's status line, each `name: value` and CRLF, then the blank line; `Date` and
        /// `Cache-Control` where ``Replay/headers(date:at:)`` puts them.
        static func pieces(_ fields: [(String, String)], date: Int?, cacheControl: Int?) -> [WirePiece] {
            var pieces = [WirePiece]()
            var text = "HTTP/1.1 200 OK\r\n"
            func value(_ piece: WirePiece) {
                pieces.append(.bytes(Array(text.utf8)))
                pieces.append(piece)
                text = "\r\n"
            }
            for (index, field) in fields.enumerated() {
                text += "\(field.0): "
                if index == date {
                    value(.date)
                } else if index == cacheControl {
                    value(.cacheControl)
                } else {
                    text += "\(field.1)\r\n"
                }
            }
            if date == nil {
                text += "Date: "
                value(.date)
            }
            if cacheControl == nil {
                text += "Cache-Control: "
                value(.cacheControl)
            }
            pieces.append(.bytes(Array((text + "\r\n").utf8)))
            return pieces
        }
    }

    /// A replay's head bytes for the second they were made in, shared by its copies.
    private final class WireCache: Sendable {
        let head = Mutex<(second: Int, head: ByteBuffer)?>(nil)
    }

    private struct WeakFile: @unchecked Sendable {  // a weak reference to a Sendable class, read once per replay
        weak var file: CachedFile?
    }

    /// Room for every cell URL a busy deployment's clients ask for within a window, at about 2 MB.
    static let defaultLimit = 4096

    let limit: Int
    let clock: any WallClock
    /// The other event loops' tables (``LoopReplays``): what this table learns, they learn too.
    private let siblings: (@Sendable () -> [HitReplays])?
    private let table = Mutex(Table())
    private let dates = Mutex<(second: Int, text: String)>((-1, ""))

    private struct Table {
        var replays: [Key: Replay] = [:]
        /// Request heads' exact bytes, and the replay each stands for.
        var heads: [ByteBuffer: Key] = [:]

        /// The replay for `key` that may still be sent at `now`; an expired or dead one is dropped.
        mutating func replay(_ key: Key, at now: Date) -> (Replay, CachedFile)? {
            guard let replay = self.replays[key] else { return nil }
            guard now < replay.terms.until, let file = replay.openFile else {
                self.replays[key] = nil
                return nil
            }
            return (replay, file)
        }

        /// Whether `key`'s replay can no longer be sent at `now`.
        func isDead(_ key: Key, at now: Date) -> Bool {
            guard let replay = self.replays[key] else { return true }
            return now >= replay.terms.until || replay.openFile == nil
        }
    }

    init(limit: Int, clock: any WallClock, siblings: (@Sendable () -> [HitReplays])? = nil) {
        self.limit = limit
        self.clock = clock
        self.siblings = siblings
    }

    /// The replay for `key` that may still be sent at `now`, if any; an expired or dead one is dropped.
    func replay(_ key: Key, at now: Date) -> (Replay, CachedFile)? {
        self.table.withLock { $0.replay(key, at: now) }
    }

    /// The replay the request head of exactly these bytes stands for (``remember(head:as:at:)``), if it may still be
    /// sent at `now`, and what it stands for.
    func replay(head: ByteBuffer, at now: Date) -> (Replay, CachedFile, Key)? {
        self.table.withLock { table in
            guard let key = table.heads[head], let (replay, file) = table.replay(key, at: now) else { return nil }
            return (replay, file, key)
        }
    }

    /// Remembers that the request head of exactly these bytes, decoded, is a request `key`'s replay answers (as
    /// ``HitReplayHandler`` found), here and, when it is new here, in the siblings; in the place of a head whose replay
    /// is dead when a table is full, else of any.
    func remember(head: ByteBuffer, as key: Key, at now: Date) {
        guard head.readableBytes <= HeadBytes.longest, self.table.withLock({ $0.heads[head] != key }) else { return }
        var copy = ByteBufferAllocator().buffer(capacity: head.readableBytes)  // not the read buffer it came in
        copy.writeImmutableBuffer(head)
        for table in [self] + (self.siblings?() ?? []) { table.rememberHere(copy, as: key, at: now) }
    }

    private func rememberHere(_ head: ByteBuffer, as key: Key, at now: Date) {
        self.table.withLock { table in
            guard table.heads[head] != key else { return }
            if table.heads.count >= self.limit, table.heads[head] == nil {
                let dead = table.heads.indices.prefix(8).first { table.isDead(table.heads[$0].value, at: now) }
                table.heads.remove(at: dead ?? table.heads.startIndex)
            }
            table.heads[head] = key
        }
    }

    /// Keeps `replay` for `key` here and in the siblings (each its own copy), in the place of an expired or dead
    /// replay when a table is full, else of any.
    func keep(_ replay: Replay, for key: Key, at now: Date) {
        self.keepHere(replay, for: key, at: now)
        for sibling in self.siblings?() ?? [] { sibling.keepHere(replay.copied(), for: key, at: now) }
    }

    private func keepHere(_ replay: Replay, for key: Key, at now: Date) {
        self.table.withLock { table in
            if table.replays.count >= self.limit, table.replays[key] == nil {
                // A few looked at, not the whole table: a full table of live replays gives up one by its hash's order.
                let dead = table.replays.indices.prefix(8).first { table.isDead(table.replays[$0].key, at: now) }
                table.replays.remove(at: dead ?? table.replays.startIndex)
            }
            table.replays[key] = replay
        }
    }

    /// Learns what `others` hold that may still be sent at `now`, as a table made after them must (``LoopReplays``):
    /// each replay its own copy, of two for one request the one that serves longer (two tables may each hold another
    /// for a moment, while one learns a newer answer), and the heads that stand for them.
    func learn(from others: [HitReplays], at now: Date) {
        for other in others {
            let (replays, heads) = other.table.withLock { table in
                (table.replays.filter { !table.isDead($0.key, at: now) }, table.heads.filter { !table.isDead($0.value, at: now) })
            }
            for (key, replay) in replays where self.table.withLock({ ($0.replays[key]?.terms.until ?? .distantPast) < replay.terms.until }) {
                self.keepHere(replay.copied(), for: key, at: now)
            }
            for (head, key) in heads { self.rememberHere(head, as: key, at: now) }
        }
    }

    var count: Int { self.table.withLock { $0.replays.count } }
    var headCount: Int { self.table.withLock { $0.heads.count } }

    /// The `Date` header for `now`, formatted once a second.
    func date(_ now: Date) -> String {
        let second = Int(total: now.timeIntervalSince1970.rounded(.down))
        return self.dates.withLock { cached in
            if cached.second != second { cached = (second, HTTPDate.format(now)) }
            return cached.text
        }
    }
}
