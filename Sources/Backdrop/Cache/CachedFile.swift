import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A rendered image's cache file held open, its contents checked when it was read or written, so that the transport
/// can send the payload with `sendfile` (``FileBodyHandler``) instead of copying it from memory. The descriptor keeps
/// referring to those contents even after the entry is replaced or removed from the folder, until the disk cache
/// revokes it (it does when the entry leaves its index, so that a removed file's blocks are freed) or the last holder
/// lets go. Sends already under way keep their own duplicate of the descriptor.
final class CachedFile: Sendable {
    /// Where the payload (the encoded image) lies in the file.
    package let payload: Range<Int>
    /// The open descriptor; nil once revoked.
    private let descriptor: Mutex<CInt?>
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
        self.descriptor = Mutex(descriptor)
        self.payload = payload
        self.budget = budget
    }

    /// The payload as a region of a new descriptor for the same file, closed when `written` completes: pass the region
    /// to the write that completes it. Each write needs its own descriptor: NIO refuses a handle another write is using.
    /// Nil once revoked (the bytes are then written from memory).
    package func region(closedWhen written: EventLoopFuture<Void>) -> FileRegion? {
        let copy = self.descriptor.withLock { descriptor in descriptor.map { dup($0) } ?? -1 }
        guard copy >= 0 else { return nil }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: copy)
        written.whenComplete { _ in try? handle.close() }
        return FileRegion(fileHandle: handle, readerIndex: self.payload.lowerBound, endIndex: self.payload.upperBound)
    }

    /// Whether the file is still open for sending.
    package var isOpen: Bool { self.descriptor.withLock { $0 != nil } }

    /// Closes the file now (its entry left the cache): no further send uses it.
    func revoke() {
        guard
            let descriptor = self.descriptor.withLock({ value -> CInt? in
                defer { value = nil }
                return value
            })
        else { return }
        close(descriptor)
        self.budget.release()
    }

    deinit {
        self.revoke()
    }
}
