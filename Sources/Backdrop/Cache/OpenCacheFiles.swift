#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import Synchronization

/// Cache files held open so that hits can be sent with `sendfile`, each findable by a number that travels from the
/// route to the connection in a response header (Hummingbird's response bodies carry bytes only; see
/// ``FileBodyHandler``).
///
/// The table holds its files weakly: a file stays open while the memory tier or a response being written holds it, and
/// closes when the last of them lets go. How many are open at once is capped, to stay well inside the process's
/// descriptor limit; past the cap, and for small payloads, hits are written from memory as before.
public final class OpenCacheFiles: Sendable {
    /// The response header carrying a file's number; ``FileBodyHandler`` removes it before the head is sent.
    public static let header = "x-backdrop-file"
    /// Below this size one `writev` of head and body costs less than a `writev` plus a `sendfile`.
    public static let minimumBytes = 32 << 10

    private struct Entry {
        weak var file: CachedFile?
    }

    private struct State {
        var next: UInt64 = 0
        var open = [UInt64: Entry]()
    }

    public let limit: Int
    private let state = Mutex(State())

    public init(limit: Int) {
        self.limit = limit
    }

    /// A table sized from the process's open-file limit: a quarter of it, at most 4096.
    public static func sizedToDescriptorLimit() -> OpenCacheFiles {
        OpenCacheFiles(limit: min(4096, (DescriptorLimit.current ?? 1024) / 4))
    }

    public var count: Int { self.state.withLock { $0.open.count } }

    /// Takes ownership of `descriptor` (open for reading) and returns it as a file whose `payload` can be sent, or
    /// closes it and returns nil when the payload is too small to gain from `sendfile` or the table is full.
    func adopt(_ descriptor: CInt, payload: Range<Int>) -> CachedFile? {
        let id: UInt64? = payload.count < Self.minimumBytes ? nil : self.state.withLock { state in
            guard state.open.count < self.limit else { return nil }
            state.next += 1
            return state.next
        }
        guard let id else {
            close(descriptor)
            return nil
        }
        let file = CachedFile(id: id, descriptor: descriptor, payload: payload, table: self)
        self.state.withLock { $0.open[id] = Entry(file: file) }
        return file
    }

    /// The file numbered `id`, if it is still open.
    public func find(_ id: UInt64) -> CachedFile? {
        self.state.withLock { $0.open[id]?.file }
    }

    fileprivate func remove(_ id: UInt64) {
        _ = self.state.withLock { $0.open.removeValue(forKey: id) }
    }
}

/// An open cache file whose contents were checked when it was read or written. The descriptor keeps referring to
/// those contents even after the entry is replaced, evicted or swept from the folder.
public final class CachedFile: Sendable {
    public let id: UInt64
    /// Where the payload (the PNG) lies in the file.
    public let payload: Range<Int>
    private let descriptor: CInt
    private let table: OpenCacheFiles

    fileprivate init(id: UInt64, descriptor: CInt, payload: Range<Int>, table: OpenCacheFiles) {
        self.id = id
        self.descriptor = descriptor
        self.payload = payload
        self.table = table
    }

    /// The payload as a region of a new descriptor for the same file, closed when `written` completes: pass the
    /// region to the write that completes it. Each write needs its own descriptor: NIO refuses a file handle that
    /// another write is using.
    public func region(closedWhen written: EventLoopFuture<Void>) -> FileRegion? {
        let copy = dup(self.descriptor)
        guard copy >= 0 else { return nil }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: copy)
        written.whenComplete { _ in try? handle.close() }
        return FileRegion(fileHandle: handle, readerIndex: self.payload.lowerBound, endIndex: self.payload.upperBound)
    }

    deinit {
        self.table.remove(self.id)
        close(self.descriptor)
    }
}
