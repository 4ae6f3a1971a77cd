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
    /// The open descriptor, until revoked.
    private let descriptor: CInt
    /// Duplicates being made of the descriptor (the low bits), ``revokedBit`` once revoked and ``closedBit`` once
    /// closed. Atomic rather than a lock: every replayed hit, on every event loop, makes a duplicate, and a lock taken
    /// by both loops of a 2-core server at each hit was contended (a priority-inheritance futex on Linux: both threads
    /// went into the kernel).
    private let state = Atomic<Int>(0)
    private let budget: OpenFileBudget

    private static let revokedBit = 1 << 40
    private static let closedBit = 1 << 41

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
    /// Nil once revoked (the bytes are then written from memory).
    package func region(closedWhen written: EventLoopFuture<Void>) -> FileRegion? {
        let before = self.state.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
        let copy = before & Self.revokedBit == 0 ? dup(self.descriptor) : -1
        self.leave()
        guard copy >= 0 else { return nil }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: copy)
        written.whenComplete { _ in try? handle.close() }
        return FileRegion(fileHandle: handle, readerIndex: self.payload.lowerBound, endIndex: self.payload.upperBound)
    }

    /// Whether the file is still open for sending.
    package var isOpen: Bool { self.state.load(ordering: .acquiring) & Self.revokedBit == 0 }

    /// Closes the file now (its entry left the cache), or as soon as the duplicates being made are made: no further
    /// send uses it.
    func revoke() {
        let before = self.state.bitwiseOr(Self.revokedBit, ordering: .acquiringAndReleasing).oldValue
        if before == 0 { self.closeOnce() }  // else a duplicate is being made: the last to leave closes it
    }

    /// A duplicate has been made (or was not): the last to leave a revoked file closes it.
    private func leave() {
        let after = self.state.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue
        if after == Self.revokedBit { self.closeOnce() }
    }

    /// Closes the descriptor if nobody has: revoked, no duplicate being made, not yet closed.
    private func closeOnce() {
        let (closing, _) = self.state.compareExchange(
            expected: Self.revokedBit,
            desired: Self.revokedBit | Self.closedBit,
            ordering: .acquiringAndReleasing
        )
        guard closing else { return }
        close(self.descriptor)
        self.budget.release()
    }

    deinit {
        self.revoke()
    }
}
