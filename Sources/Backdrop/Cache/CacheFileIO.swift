import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The blocking file operations of the disk cache. They run on the cache's own I/O thread (``DiskIOThread``), never
/// on Swift's cooperative pool.
enum CacheFileIO {
    struct Problem: Error {
        let message: String
        static var errno: Self { Self(message: String(cString: strerror(currentErrno()))) }
    }

    private static func currentErrno() -> Int32 {
        #if canImport(Darwin)
        Darwin.errno
        #elseif canImport(Musl)
        Musl.errno
        #else
        Glibc.errno
        #endif
    }

    /// Writes `prefix` and then `payload` to a temporary file beside `path`, then renames it into place, so that readers
    /// never see part of it. The payload is written from its own buffer, not copied into the file's image first.
    /// Returns the file still open for reading.
    static func writeAtomically(_ prefix: [UInt8], _ payload: ByteBuffer, to path: String) -> Result<CInt, Problem> {
        let temporary =
            (path as NSString).deletingLastPathComponent + "/.tmp-\((path as NSString).lastPathComponent)-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return .failure(.errno) }
        var failure = prefix.withUnsafeBytes { self.writeAll(descriptor, $0) }
        if failure == nil { failure = payload.withUnsafeReadableBytes { self.writeAll(descriptor, $0) } }
        if failure == nil, rename(temporary, path) != 0 { failure = .errno }
        if let failure {
            close(descriptor)
            unlink(temporary)
            return .failure(failure)
        }
        return .success(descriptor)
    }

    /// Writes all of `bytes` at the descriptor's position; the error, if one stopped it.
    private static func writeAll(_ descriptor: CInt, _ bytes: UnsafeRawBufferPointer) -> Problem? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if self.currentErrno() == EINTR { continue }
                return .errno
            }
            offset += written
        }
        return nil
    }

    /// The whole file at `path` and the file, still open; nil if it cannot be read.
    static func readAll(_ path: String) -> (bytes: ByteBuffer, descriptor: CInt)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        guard let bytes = self.readAll(descriptor: descriptor) else {
            close(descriptor)
            return nil
        }
        return (bytes, descriptor)
    }

    /// The whole file, as long as `fstat` says it is; nil if it reads shorter.
    private static func readAll(descriptor: CInt) -> ByteBuffer? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size >= 0 else { return nil }
        let size = Int(info.st_size)
        var buffer = ByteBufferAllocator().buffer(capacity: size)
        let filled = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { raw in
            self.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: raw.prefix(size)))
        }
        return filled == size ? buffer : nil
    }

    /// Up to `count` bytes from the start of the file at `path`.
    static func readPrefix(_ path: String, count: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let bytes = self.read(descriptor, upTo: count)
        return bytes.isEmpty ? nil : bytes
    }

    /// Up to `count` bytes from the start of `descriptor`'s file, fewer at its end or on an error.
    private static func read(_ descriptor: CInt, upTo count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, filled in
            filled = self.read(descriptor, into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// Fills `buffer` from the start of `descriptor`'s file; how many bytes it read (fewer at its end or on an error).
    private static func read(_ descriptor: CInt, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var filled = 0
        while filled < buffer.count, let base = buffer.baseAddress {
            let got = pread(descriptor, base + filled, buffer.count - filled, off_t(filled))
            if got < 0, self.currentErrno() == EINTR { continue }
            if got <= 0 { break }
            filled += got
        }
        return filled
    }

    /// What a file of `size` bytes at least takes on disk: whole blocks, one at the least.
    static let block = 4096

    /// The bytes the file takes on disk: its allocated blocks (`st_blocks`), never less than its size rounded up to
    /// whole blocks (one at least), so that many small files are charged what they cost.
    static func allocated(descriptor: CInt) -> Int? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? self.allocated(info) : nil
    }

    static func allocated(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? self.allocated(info) : nil
    }

    private static func allocated(_ info: stat) -> Int {
        let rounded = max(1, (Int(info.st_size) + self.block - 1) / self.block) * self.block
        return max(Int(info.st_blocks) * 512, rounded)
    }

    static func size(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    static func remove(_ path: String) {
        unlink(path)
    }

    static func close(_ descriptor: CInt) {
        #if canImport(Darwin)
        _ = Darwin.close(descriptor)
        #elseif canImport(Musl)
        _ = Musl.close(descriptor)
        #else
        _ = Glibc.close(descriptor)
        #endif
    }
}
