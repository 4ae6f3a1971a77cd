import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A rendered image's cache file held open, its contents checked when it was read or written, so that the transport
/// can send the payload with `sendfile` (``FileBodyHandler``) instead of copying it from memory. The descriptor keeps
/// referring to those contents even after the entry is replaced, evicted or swept from the folder. It closes when the
/// last holder (the memory tier, a write in flight) lets go.
public final class CachedFile: Sendable {
    /// Where the payload (the encoded image) lies in the file.
    public let payload: Range<Int>
    private let descriptor: CInt
    private let budget: OpenFileBudget

    /// Takes ownership of `descriptor` if `budget` has room and the payload is large enough to gain from `sendfile`;
    /// otherwise closes it and returns nil.
    static func adopt(_ descriptor: CInt, payload: Range<Int>, budget: OpenFileBudget) -> CachedFile? {
        guard payload.count >= OpenFileBudget.minimumPayload, budget.reserve() else {
            close(descriptor)
            return nil
        }
        return CachedFile(descriptor: descriptor, payload: payload, budget: budget)
    }

    private init(descriptor: CInt, payload: Range<Int>, budget: OpenFileBudget) {
        self.descriptor = descriptor
        self.payload = payload
        self.budget = budget
    }

    /// The payload as a region of a new descriptor for the same file, closed when `written` completes: pass the region
    /// to the write that completes it. Each write needs its own descriptor: NIO refuses a handle another write is using.
    public func region(closedWhen written: EventLoopFuture<Void>) -> FileRegion? {
        let copy = dup(self.descriptor)
        guard copy >= 0 else { return nil }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: copy)
        written.whenComplete { _ in try? handle.close() }
        return FileRegion(fileHandle: handle, readerIndex: self.payload.lowerBound, endIndex: self.payload.upperBound)
    }

    deinit {
        close(self.descriptor)
        self.budget.release()
    }
}
