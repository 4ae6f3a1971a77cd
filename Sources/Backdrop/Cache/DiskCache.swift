import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Entries on disk under one folder, bounded by a byte budget with least-recently-used eviction, all state owned here.
///
/// Files are named by a hash of their key (no request string reaches a path) and written to a temporary file then
/// renamed, so a reader never sees a partial file; each file carries its key and a CRC-32, and one that does not check
/// out is deleted rather than served. When the disk fails (full, read-only, folder gone) the cache logs a warning at
/// most once a minute, counts the error and lets the service run uncached until writes work again.
public actor DiskCache {
    struct IndexEntry: Sendable {
        let kind: CacheEntry.Kind
        let file: String
        let size: Int
        let created: Date
        let window: Int64
        var lastUse: UInt64
    }

    public let folder: URL
    let budget: Int
    let clock: any WallClock
    let logger: Logger
    let metrics: BackdropMetrics?
    /// Where render files read or written stay open for sending; nil keeps none open.
    let files: OpenCacheFiles?
    private var index = [String: IndexEntry]()
    private var bytesByKind = [CacheEntry.Kind: Int]()
    private var tick: UInt64 = 0
    private var failing = false
    private var lastWarning: Date?

    public init(folder: URL, budgetBytes: Int, clock: any WallClock, logger: Logger, metrics: BackdropMetrics? = nil,
                files: OpenCacheFiles? = nil) {
        self.folder = folder
        self.budget = budgetBytes
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.files = files
    }

    public var entryCount: Int { self.index.count }
    public var totalBytes: Int { self.bytesByKind.values.reduce(0, +) }
    func bytes(of kind: CacheEntry.Kind) -> Int { self.bytesByKind[kind] ?? 0 }

    /// Creates the folder if needed, removes temporary files left by an interrupted write, and rebuilds the index from
    /// the entries' headers (the oldest counting as least recently used). Returns the entries indexed.
    @discardableResult
    public func open() -> Int {
        self.index = [:]
        self.bytesByKind = [:]
        do {
            try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
        } catch {
            self.failed("open", "cannot create cache folder \(self.folder.path): \(error.localizedDescription)")
            return 0
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: self.folder.path)) ?? []
        var found = [(String, CacheEntry.Header)]()
        for name in names {
            let path = self.folder.appendingPathComponent(name).path
            if name.hasPrefix(".tmp-") {
                unlink(path)
                continue
            }
            guard name.hasSuffix(".bdc") else { continue }
            guard let header = Self.readHeader(path), Self.fileName(for: header.key, kind: header.kind) == name,
                  Self.fileSize(path) == header.fileSize
            else {
                unlink(path)
                continue
            }
            found.append((name, header))
        }
        for (name, header) in found.sorted(by: { $0.1.created < $1.1.created }) {
            self.tick += 1
            self.add(header.key, IndexEntry(kind: header.kind, file: name, size: header.fileSize, created: header.created,
                                            window: header.window, lastUse: self.tick))
        }
        self.evict()
        self.publishBytes()
        return self.index.count
    }

    /// The entry for `key`, checked end to end; a damaged one is deleted.
    func read(_ key: String) -> CacheEntry? {
        self.read(key, keepOpen: false)?.entry
    }

    /// The entry for `key`, checked end to end, and the checked file kept open for sending its payload when the table
    /// of open files takes it; a damaged entry is deleted.
    func read(_ key: String, keepOpen: Bool) -> (entry: CacheEntry, file: CachedFile?)? {
        guard var item = self.index[key] else {
            return nil
        }
        let path = self.folder.appendingPathComponent(item.file).path
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0, let bytes = Self.readAll(descriptor), let entry = CacheEntry.decode(bytes), entry.key == key else {
            if descriptor >= 0 { close(descriptor) }
            self.logger.warning("cache entry unreadable or corrupt: removed", metadata: ["kind": "\(item.kind.label)"])
            self.metrics?.cacheError("read")
            unlink(path)
            self.drop(key)
            self.publishBytes()
            return nil
        }
        self.tick += 1
        item.lastUse = self.tick
        self.index[key] = item
        return (entry, self.keep(descriptor, payload: entry.payloadRange, if: keepOpen))
    }

    func contains(_ key: String) -> Bool { self.index[key] != nil }

    /// Writes `entry` atomically and evicts the least recently used entries beyond the budget. With `keepOpen`, returns
    /// the written file open for sending its payload, when the table of open files takes it.
    @discardableResult
    func write(_ entry: CacheEntry, keepOpen: Bool = false) -> CachedFile? {
        let name = Self.fileName(for: entry.key, kind: entry.kind)
        let bytes = entry.encoded()
        guard bytes.count <= self.budget else { return nil }
        let final = self.folder.appendingPathComponent(name).path
        var written = self.writeAtomically(bytes, name: name, to: final)
        if case .failure = written, (try? FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)) != nil {
            written = self.writeAtomically(bytes, name: name, to: final)  // the folder had vanished
        }
        guard case .success(let descriptor) = written else {
            if case .failure(let problem) = written { self.failed("write", "cannot write cache entry: \(problem.message)") }
            return nil
        }
        if self.failing {
            self.failing = false
            self.logger.notice("cache is writable again", metadata: ["folder": "\(self.folder.path)"])
        }
        self.drop(entry.key)
        self.tick += 1
        self.add(entry.key, IndexEntry(kind: entry.kind, file: name, size: bytes.count, created: entry.created, window: entry.window,
                                       lastUse: self.tick))
        self.evict()
        self.publishBytes()
        return self.keep(descriptor, payload: entry.payloadRange, if: keepOpen)
    }

    struct WriteProblem: Error {
        let message: String
        static var errno: Self { Self(message: String(cString: strerror(Glibc.errno))) }
    }

    /// Writes to a temporary file in the folder, then renames it into place; returns the written file, still open.
    private func writeAtomically(_ bytes: [UInt8], name: String, to final: String) -> Result<CInt, WriteProblem> {
        let temporary = self.folder.appendingPathComponent(".tmp-\(name)-\(UInt32.random(in: 0...UInt32.max))").path
        let written = Self.writeFile(temporary, bytes).flatMap { descriptor in
            if rename(temporary, final) == 0 { return .success(descriptor) }
            let problem = WriteProblem.errno
            close(descriptor)
            return .failure(problem)
        }
        if case .failure = written { unlink(temporary) }
        return written
    }

    /// Hands `descriptor` to the table of open files when asked to and one is configured, else closes it.
    private func keep(_ descriptor: CInt, payload: Range<Int>, if wanted: Bool) -> CachedFile? {
        guard wanted, let files = self.files else {
            close(descriptor)
            return nil
        }
        return files.adopt(descriptor, payload: payload)
    }

    /// Removes entries `isExpired` says are done with; returns how many.
    @discardableResult
    func sweep(_ isExpired: (CacheEntry.Kind, Date, Int64) -> Bool) -> Int {
        let expired = self.index.filter { isExpired($0.value.kind, $0.value.created, $0.value.window) }
        for (key, item) in expired {
            unlink(self.folder.appendingPathComponent(item.file).path)
            self.drop(key)
        }
        if !expired.isEmpty { self.publishBytes() }
        return expired.count
    }

    /// Keys of `kind` starting with `prefix`, largest entry first.
    func keysBySize(of kind: CacheEntry.Kind, prefix: String) -> [String] {
        self.index.filter { $0.value.kind == kind && $0.key.hasPrefix(prefix) }.sorted { $0.value.size > $1.value.size }.map(\.key)
    }

    // MARK: - internals

    private func add(_ key: String, _ item: IndexEntry) {
        self.index[key] = item
        self.bytesByKind[item.kind, default: 0] += item.size
    }

    private func drop(_ key: String) {
        if let old = self.index.removeValue(forKey: key) { self.bytesByKind[old.kind, default: 0] -= old.size }
    }

    private func evict() {
        while self.totalBytes > self.budget, let oldest = self.index.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            unlink(self.folder.appendingPathComponent(oldest.value.file).path)
            self.drop(oldest.key)
            self.metrics?.cache(.eviction, kind: oldest.value.kind.label)
        }
    }

    private func publishBytes() {
        for kind in CacheEntry.Kind.allCases { self.metrics?.cacheBytes(kind: kind.label, bytes: self.bytes(of: kind)) }
    }

    private func failed(_ operation: String, _ message: String) {
        self.failing = true
        self.metrics?.cacheError(operation)
        let now = self.clock.now()
        if self.lastWarning.map({ now.timeIntervalSince($0) >= 60 }) ?? true {
            self.lastWarning = now
            self.logger.warning("disk cache unavailable, serving uncached", metadata: ["error": "\(message.prefix(200))"])
        }
    }

    static func fileName(for key: String, kind: CacheEntry.Kind) -> String {
        "\(kind.label)-\(String(PhotoChoice.stableHash(key), radix: 16)).bdc"
    }

    private static func readHeader(_ path: String) -> CacheEntry.Header? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: CacheEntry.headerSize + 1024) else { return nil }
        return CacheEntry.header([UInt8](data))
    }

    private static func fileSize(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    /// Writes `bytes` to a new file; returns it open for reading.
    private static func writeFile(_ path: String, _ bytes: [UInt8]) -> Result<CInt, WriteProblem> {
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return .failure(.errno) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.write(descriptor, base + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                let problem = WriteProblem.errno
                close(descriptor)
                return .failure(problem)
            }
            offset += written
        }
        return .success(descriptor)
    }

    /// The whole file behind `descriptor`, read from its start; nil if it cannot be read.
    private static func readAll(_ descriptor: CInt) -> [UInt8]? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size >= 0 else { return nil }
        let size = Int(info.st_size)
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            while count < size {
                let got = pread(descriptor, buffer.baseAddress.map { $0 + count }, size - count, off_t(count))
                if got < 0, errno == EINTR { continue }
                if got <= 0 {
                    failed = true
                    return
                }
                count += got
            }
        }
        return failed ? nil : bytes
    }
}
