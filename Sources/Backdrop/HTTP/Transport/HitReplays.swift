import Foundation
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
/// takes the place of an expired or a dead one among the first few, else of any.
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
        /// The route's metric label, the image's format, and the photo's source and cell, for the metrics and the log.
        let route: String
        let format: String
        let source: String?
        let cell: String?
    }

    /// One answer to send again.
    struct Replay: Sendable {
        /// The route's head as it went out, but for `Connection` (the transport's, per request).
        private let fields: [(String, String)]
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
        }

        /// The head to send at `now`: the route's, its `Date` and `Cache-Control` made anew, each where it stood.
        func headers(date: String, at now: Date) -> HTTPHeaders {
            var fields = self.fields
            let cacheControl = self.terms.cacheControl(now)
            if let index = self.date { fields[index].1 = date } else { fields.append(("Date", date)) }
            if let index = self.cacheControl { fields[index].1 = cacheControl } else { fields.append(("Cache-Control", cacheControl)) }
            return HTTPHeaders(fields)
        }

        /// The cache file, while its render is still held and the file open.
        var openFile: CachedFile? {
            guard let file = self.file.file, file.isOpen else { return nil }
            return file
        }
    }

    private struct WeakFile: @unchecked Sendable {  // a weak reference to a Sendable class, read once per replay
        weak var file: CachedFile?
    }

    /// Room for every cell URL a busy deployment's clients ask for within a window, at about 2 MB.
    static let defaultLimit = 4096

    let limit: Int
    let clock: any WallClock
    private let table = Mutex<[Key: Replay]>([:])
    private let dates = Mutex<(second: Int, text: String)>((-1, ""))

    init(limit: Int, clock: any WallClock) {
        self.limit = limit
        self.clock = clock
    }

    /// The replay for `key` that may still be sent at `now`, if any; an expired or dead one is dropped.
    func replay(_ key: Key, at now: Date) -> (Replay, CachedFile)? {
        self.table.withLock { table in
            guard let replay = table[key] else { return nil }
            guard now < replay.terms.until, let file = replay.openFile else {
                table[key] = nil
                return nil
            }
            return (replay, file)
        }
    }

    /// Keeps `replay` for `key`, in the place of an expired or dead replay when the table is full, else of any.
    func keep(_ replay: Replay, for key: Key, at now: Date) {
        self.table.withLock { table in
            if table.count >= self.limit, table[key] == nil {
                // A few looked at, not the whole table: a full table of live replays gives up one by its hash's order.
                let dead = table.indices.prefix(8).first { now >= table[$0].value.terms.until || table[$0].value.openFile == nil }
                table.remove(at: dead ?? table.startIndex)
            }
            table[key] = replay
        }
    }

    var count: Int { self.table.withLock { $0.count } }

    /// The `Date` header for `now`, formatted once a second.
    func date(_ now: Date) -> String {
        let second = Int(total: now.timeIntervalSince1970.rounded(.down))
        return self.dates.withLock { cached in
            if cached.second != second { cached = (second, HTTPDate.format(now)) }
            return cached.text
        }
    }
}
