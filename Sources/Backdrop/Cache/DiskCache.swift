import Foundation
import Logging

/// Entries on disk under one folder, bounded by a budget of disk space and a number of files with least-recently-used
/// eviction (in constant time, ``LRUIndex``), all state owned here. Each entry is charged what it takes on disk (its
/// allocated blocks, one at least), not its length, so that many small files cannot take more disk than the budget.
///
/// Files are named by a hash of their key and spread over 256 subfolders (``CacheLayout``), and written to a temporary
/// file then renamed, so a reader never sees a partial file; each file carries its key and a CRC-32, and one that does not check
/// out is deleted rather than served. When the disk fails (full, read-only, folder gone) the cache logs a warning at
/// most once a minute, counts the error and lets the service run uncached until writes work again.
///
/// The actor runs on its own I/O thread (``DiskIOThread``): its file operations block that thread, never the
/// cooperative pool or an event loop.
actor DiskCache {
    struct IndexEntry: Sendable {
        let kind: CacheEntry.Kind
        let file: String
        /// Disk space charged: the file's allocated blocks.
        let size: Int
        let created: Date
        let window: Int64
    }

    package let folder: URL
    let budget: Int
    let maxFiles: Int
    let clock: any WallClock
    let logger: Logger
    let metrics: BackdropMetrics
    /// Its executor; a service of the application, stopping after the cache's other parts.
    nonisolated let thread: DiskIOThread
    let layout: CacheLayout
    private var index = LRUIndex<String, IndexEntry>()
    private var bytesByKind = [CacheEntry.Kind: Int]()
    /// Subfolders known to exist (made on first use, forgotten when a write fails).
    private var subfolders = Set<String>()
    private var failing = false
    /// Whether ``rebuildIndex()`` has run: until then an entry missing from the index may still be on disk.
    private(set) var indexRebuilt = false
    /// Render files read or written, held open for `sendfile` within the open-file budget.
    private var handedOut: HandedOutFiles
    private var lastWarning: Date?

    package nonisolated var unownedExecutor: UnownedSerialExecutor { self.thread.loop.executor.asUnownedSerialExecutor() }

    package init(
        folder: URL,
        budgetBytes: Int,
        maxFiles: Int = .max,
        clock: any WallClock,
        logger: Logger,
        metrics: BackdropMetrics = BackdropMetrics(),
        openFiles: OpenFileBudget? = nil,
        thread: DiskIOThread = DiskIOThread()
    ) {
        self.folder = folder
        self.budget = budgetBytes
        self.maxFiles = max(1, maxFiles)
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.layout = CacheLayout(folder: folder)
        self.handedOut = HandedOutFiles(budget: openFiles)
        self.thread = thread
    }

    package var entryCount: Int { self.index.count }
    package var totalBytes: Int { self.bytesByKind.values.reduce(0, +) }
    func bytes(of kind: CacheEntry.Kind) -> Int { self.bytesByKind[kind] ?? 0 }

    /// Creates the folder if needed, removes temporary files left by an interrupted write, and adds the entries found
    /// there to the index (the oldest counting as least recently used; entries written since start stay as they are).
    /// Returns the entries indexed. Runs once at start, in the background (``CacheSweeper``): until it has run, a key
    /// missing from the index is looked up on disk by its file name.
    @discardableResult
    package func rebuildIndex() -> Int {
        do {
            try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
        } catch {
            self.failed("open", "cannot create cache folder \(self.folder.path): \(error.localizedDescription)")
            return self.index.count
        }
        let indexed = Set(self.index.entries.map(\.value.file))
        var found = [(String, CacheEntry.Header, Int)]()
        for top in (try? FileManager.default.contentsOfDirectory(atPath: self.folder.path)) ?? [] {
            guard CacheLayout.isSubfolder(top) else {
                // Temporary files of an interrupted write, and entries of the flat layout before subfolders.
                if top.hasPrefix(".tmp-") || top.hasSuffix(".bdc") { CacheFileIO.remove(self.folder.appendingPathComponent(top).path) }
                continue
            }
            self.subfolders.insert(top)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: self.folder.appendingPathComponent(top).path)) ?? []
            where !indexed.contains(name) {
                let path = self.folder.appendingPathComponent(top).appendingPathComponent(name).path
                if name.hasPrefix(".tmp-") { CacheFileIO.remove(path) }
                guard name.hasSuffix(".bdc"), CacheLayout.subfolder(of: name) == top else { continue }
                guard let prefix = CacheFileIO.readPrefix(path, count: CacheEntry.headerSize + 1024), let header = CacheEntry.header(prefix),
                    CacheLayout.fileName(for: header.key, kind: header.kind) == name, CacheFileIO.size(path) == header.fileSize,
                    let allocated = CacheFileIO.allocated(path)
                else {
                    CacheFileIO.remove(path)
                    continue
                }
                found.append((name, header, allocated))
            }
        }
        // Newest first, each as the oldest so far: the oldest file ends least recently used, and every entry used since
        // start stays more recent than all of them.
        for (name, header, allocated) in found.sorted(by: { $0.1.created > $1.1.created }) where self.index[header.key] == nil {
            self.add(
                header.key,
                IndexEntry(kind: header.kind, file: name, size: allocated, created: header.created, window: header.window),
                asOldest: true
            )
        }
        self.indexRebuilt = true
        self.evict()
        self.publishBytes()
        return self.index.count
    }

    /// The entry for `key`, checked end to end; a damaged one is deleted.
    func read(_ key: String) -> CacheEntry? {
        self.read(key, keepOpen: false)?.entry
    }

    /// The entry for `key`, checked end to end, and with `keepOpen` its file held open for sending the payload (when the
    /// open-file budget allows); a damaged entry is deleted.
    func read(_ key: String, keepOpen: Bool) -> (entry: CacheEntry, file: CachedFile?)? {
        guard let item = self.index[key] else { return self.indexRebuilt ? nil : self.adoptUnindexed(key, keepOpen: keepOpen) }
        let path = self.path(item.file)
        guard let (bytes, descriptor) = CacheFileIO.readAll(path) else { return self.discard(key, item) }
        guard let entry = CacheEntry.decode(bytes), entry.key == key else {
            CacheFileIO.close(descriptor)
            return self.discard(key, item)
        }
        _ = self.index.touch(key)
        return (entry, self.keep(descriptor, entry: entry, if: keepOpen))
    }

    /// Deletes an entry that cannot be read or does not check out; it will be made again.
    private func discard(_ key: String, _ item: IndexEntry) -> (entry: CacheEntry, file: CachedFile?)? {
        self.logger.warning("cache entry unreadable or corrupt: removed", metadata: ["kind": "\(item.kind.label)"])
        self.metrics.cacheError("read")
        CacheFileIO.remove(self.path(item.file))
        self.drop(key)
        self.publishBytes()
        return nil
    }

    func contains(_ key: String) -> Bool { self.index[key] != nil }

    /// Writes `entry` atomically and evicts the least recently used entries beyond the budget. With `keepOpen`, returns
    /// the written file held open for sending the payload (when the open-file budget allows).
    @discardableResult
    func write(_ entry: CacheEntry, keepOpen: Bool = false) -> CachedFile? {
        let name = CacheLayout.fileName(for: entry.key, kind: entry.kind)
        let prefix = entry.prefix()
        let size = prefix.count + entry.payload.readableBytes
        guard size <= self.budget else { return nil }
        let subfolder = CacheLayout.subfolder(of: name)
        if !self.subfolders.contains(subfolder) { self.makeSubfolder(subfolder) }
        var written = CacheFileIO.writeAtomically(prefix, entry.payload, to: self.path(name))
        if case .failure = written {
            // The folder may have vanished, or the disk filled: release every file held open (their blocks may be all
            // that fills it, if the folder was removed), recreate the folder and try once more.
            self.handedOut.revokeAll()
            self.subfolders = []
            if self.makeSubfolder(subfolder) { written = CacheFileIO.writeAtomically(prefix, entry.payload, to: self.path(name)) }
        }
        let descriptor: CInt
        switch written {
        case .success(let opened): descriptor = opened
        case .failure(let problem):
            self.failed("write", "cannot write cache entry: \(problem.message)")
            return nil
        }
        if self.failing {
            self.failing = false
            self.logger.notice("cache is writable again", metadata: ["folder": "\(self.folder.path)"])
        }
        self.drop(entry.key)
        let allocated = CacheFileIO.allocated(descriptor: descriptor) ?? size
        self.add(entry.key, IndexEntry(kind: entry.kind, file: name, size: allocated, created: entry.created, window: entry.window))
        self.evict()
        self.publishBytes()
        return self.keep(descriptor, entry: entry, if: keepOpen)
    }

    /// Removes entries `isExpired` says are done with; returns how many.
    @discardableResult
    func sweep(_ isExpired: (CacheEntry.Kind, Date, Int64) -> Bool) -> Int {
        let expired = self.index.entries.filter { isExpired($0.value.kind, $0.value.created, $0.value.window) }
        for (key, item) in expired {
            CacheFileIO.remove(self.path(item.file))
            self.drop(key)
        }
        if !expired.isEmpty { self.publishBytes() }
        return expired.count
    }

    /// Keys of `kind` starting with `prefix`, largest entry first.
    /// Whether any entry of `kind` has a key starting with `prefix`.
    func hasEntry(of kind: CacheEntry.Kind, prefix: String) -> Bool {
        self.index.entries.contains { $0.value.kind == kind && $0.key.hasPrefix(prefix) }
    }

    func keysBySize(of kind: CacheEntry.Kind, prefix: String) -> [String] {
        self.index.entries.filter { $0.value.kind == kind && $0.key.hasPrefix(prefix) }.sorted { $0.value.size > $1.value.size }.map(\.key)
    }

    // MARK: - internals

    /// Hands `descriptor` to a ``CachedFile`` when asked to and the budget allows, else closes it.
    private func keep(_ descriptor: CInt, entry: CacheEntry, if wanted: Bool) -> CachedFile? {
        self.handedOut.keep(descriptor, name: CacheLayout.fileName(for: entry.key, kind: entry.kind), entry: entry, if: wanted)
    }

    /// Before the index is rebuilt: the entry for `key` if its file is there and checks out, indexed from now on.
    private func adoptUnindexed(_ key: String, keepOpen: Bool) -> (entry: CacheEntry, file: CachedFile?)? {
        guard let kind = CacheEntry.Kind.allCases.first(where: { key.hasPrefix("\($0.label)/") }) else { return nil }
        let name = CacheLayout.fileName(for: key, kind: kind)
        guard let (bytes, descriptor) = CacheFileIO.readAll(self.path(name)) else { return nil }
        guard let entry = CacheEntry.decode(bytes), entry.key == key, entry.kind == kind else {
            CacheFileIO.close(descriptor)
            return nil
        }
        let allocated = CacheFileIO.allocated(descriptor: descriptor) ?? bytes.readableBytes
        self.add(key, IndexEntry(kind: kind, file: name, size: allocated, created: entry.created, window: entry.window))
        self.evict()
        self.publishBytes()
        return (entry, self.keep(descriptor, entry: entry, if: keepOpen))
    }

    private func path(_ name: String) -> String { self.layout.path(name) }

    /// Creates `subfolder` (and the cache folder, if it has gone) and remembers it; false when it cannot be made.
    @discardableResult
    private func makeSubfolder(_ subfolder: String) -> Bool {
        if !FileManager.default.fileExists(atPath: self.folder.path) { self.forgetVanishedFolder() }
        guard (try? FileManager.default.createDirectory(at: self.layout.url(of: subfolder), withIntermediateDirectories: true)) != nil
        else { return false }
        self.subfolders.insert(subfolder)
        return true
    }

    /// The cache folder was removed under the service: its files are gone, their blocks freed once nothing holds them.
    /// Every entry is forgotten and every file held open for sending released (a write into a new subfolder would
    /// otherwise recreate the folder without noticing), and the subfolders are made again as needed.
    private func forgetVanishedFolder() {
        for key in self.index.entries.map(\.key) { self.drop(key) }
        self.handedOut.revokeAll()
        self.subfolders = []
        self.publishBytes()
        self.logger.notice("cache folder vanished: its entries are forgotten", metadata: ["folder": "\(self.folder.path)"])
    }

    private func add(_ key: String, _ item: IndexEntry, asOldest: Bool = false) {
        self.index.set(item, for: key, asOldest: asOldest)
        self.bytesByKind[item.kind, default: 0] += item.size
    }

    private func drop(_ key: String) {
        guard let old = self.index.remove(key) else { return }
        self.bytesByKind[old.kind, default: 0] -= old.size
        self.handedOut.revoke(old.file)
    }

    private func evict() {
        while self.totalBytes > self.budget || self.index.count > self.maxFiles, let oldest = self.index.oldest {
            CacheFileIO.remove(self.path(oldest.value.file))
            self.drop(oldest.key)
            self.metrics.cache(.eviction, kind: oldest.value.kind.label)
        }
    }

    private func publishBytes() {
        for kind in CacheEntry.Kind.allCases { self.metrics.cacheBytes(kind: kind.label, bytes: self.bytes(of: kind)) }
    }

    private func failed(_ operation: String, _ message: String) {
        self.failing = true
        self.metrics.cacheError(operation)
        let now = self.clock.now()
        if self.lastWarning.map({ now.timeIntervalSince($0) >= 60 }) ?? true {
            self.lastWarning = now
            self.logger.warning("disk cache unavailable, serving uncached", metadata: ["error": "\(message.prefix(200))"])
        }
    }
}
