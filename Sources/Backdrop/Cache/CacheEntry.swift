import Foundation
import NIOCore

/// One cache file: a fixed header, the entry's key, JSON metadata and the payload, with a CRC-32 over all three,
/// so that a torn, truncated or altered file is recognised and never served.
///
///     0  "BDC1"          4  reserved           8  created (ms, LE)   16 window (LE)      24 key length (u16)  26 kind (u8)
///     28 meta length     32 payload length     40 CRC-32           44 reserved          48 key, meta, payload
struct CacheEntry: Sendable {
    static let magic: [UInt8] = Array("BDC1".utf8)
    static let headerSize = 48

    /// What an entry holds.
    enum Kind: UInt8, Sendable, CaseIterable {
        /// A cell's chosen photo for a window (metadata only).
        case photo = 1
        /// A downloaded source photo (JPEG).
        case source = 2
        /// A rendered background (PNG).
        case render = 3

        var label: String {
            switch self {
            case .photo: "photo"
            case .source: "source"
            case .render: "render"
            }
        }
    }

    /// The header's facts, enough to index an entry without reading its payload.
    struct Header: Sendable {
        let kind: Kind
        let created: Date
        let window: Int64
        let key: String
        let metaLength: Int
        let payloadLength: Int
        let crc: UInt32

        var fileSize: Int { CacheEntry.headerSize + self.key.utf8.count + self.metaLength + self.payloadLength }
    }

    let kind: Kind
    let created: Date
    let window: Int64
    let key: String
    let meta: [UInt8]
    /// The bytes a reader is after: written from this buffer as it is, read as a slice of the file's bytes.
    let payload: ByteBuffer
    /// The payload's CRC-32 when the writer has it already (a render's `ETag`), so that it is not computed twice.
    var payloadCRC: UInt32? = nil

    /// Where the payload lies in the encoded file.
    var payloadRange: Range<Int> {
        let start = Self.headerSize + self.key.utf8.count + self.meta.count
        return start..<(start + self.payload.readableBytes)
    }

    /// `meta` (JSON) followed by as many spaces as put the payload after it at a multiple of `alignment` bytes into the
    /// file (the memory page size), for a payload sent to clients with `sendfile`. The kernel builds each outgoing TCP
    /// segment from the file's pages, at most 17 of them a segment: a payload that starts partway into a page (485
    /// bytes in, say) spans one page more than its length needs, so that 64 kB segments did not fit and every answer
    /// went out in more, smaller segments, each with its own work on both ends (on loopback: 3 segments for a 115 kB
    /// image where nginx, sending from the file's start, needed 2). JSON reads the same with trailing spaces, and the
    /// CRC covers them: the format does not change, and files written before still read.
    static func pageAligned(meta: [UInt8], key: String, alignment: Int = CacheEntry.pageSize) -> [UInt8] {
        let start = Self.headerSize + key.utf8.count + meta.count
        let padding = (alignment - start % alignment) % alignment
        return meta + [UInt8](repeating: UInt8(ascii: " "), count: padding)
    }

    /// The memory page size, the unit `sendfile` takes a file in.
    static let pageSize = max(1, Int(sysconf(Int32(_SC_PAGESIZE))))

    /// What precedes the payload in the file: the header, with the CRC-32 over key, meta and payload (the payload's
    /// own CRC combined in, not computed again), then key and meta. The file is this and then the payload.
    func prefix() -> [UInt8] {
        let key = Array(self.key.utf8)
        var bytes = [UInt8]()
        bytes.reserveCapacity(Self.headerSize + key.count + self.meta.count)
        bytes += Self.magic
        bytes += [0, 0, 0, 0]
        bytes += Self.littleEndian(UInt64(bitPattern: Int64(total: self.created.timeIntervalSince1970 * 1000)))
        bytes += Self.littleEndian(UInt64(bitPattern: self.window))
        bytes += Self.littleEndian(UInt16(key.count))
        bytes += [self.kind.rawValue, 0]
        bytes += Self.littleEndian(UInt32(self.meta.count))
        bytes += Self.littleEndian(UInt64(self.payload.readableBytes))
        let crc = CRC32.combine(
            CRC32.checksum(self.meta, continuing: CRC32.checksum(key)),
            self.payloadCRC ?? CRC32.checksum(self.payload),
            secondLength: self.payload.readableBytes
        )
        bytes += Self.littleEndian(crc)
        bytes += [0, 0, 0, 0]
        bytes += key
        bytes += self.meta
        return bytes
    }

    /// Reads and checks a whole file; nil if anything about it is wrong. The payload is a slice of `file`, not a copy.
    static func decode(_ file: ByteBuffer) -> CacheEntry? {
        let keyLength = Int(file.getInteger(at: file.readerIndex + 24, endianness: .little, as: UInt16.self) ?? 0)
        guard let start = file.getBytes(at: file.readerIndex, length: min(file.readableBytes, self.headerSize + keyLength)),
            let header = self.header(start), header.fileSize == file.readableBytes
        else { return nil }
        let keyEnd = self.headerSize + header.key.utf8.count
        let metaEnd = keyEnd + header.metaLength
        let crc = file.withUnsafeReadableBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[self.headerSize...])) }
        guard crc == header.crc, let meta = file.getBytes(at: file.readerIndex + keyEnd, length: header.metaLength),
            let payload = file.getSlice(at: file.readerIndex + metaEnd, length: header.payloadLength)
        else { return nil }
        return CacheEntry(
            kind: header.kind,
            created: header.created,
            window: header.window,
            key: header.key,
            meta: meta,
            payload: payload
        )
    }

    /// Parses the header and key from the first bytes of a file.
    static func header(_ bytes: [UInt8]) -> Header? {
        guard bytes.count >= self.headerSize, bytes.starts(with: self.magic), let kind = Kind(rawValue: bytes[26]) else { return nil }
        let keyLength = Int(self.read(UInt16.self, bytes, 24))
        guard bytes.count >= self.headerSize + keyLength,
            let key = String(validating: bytes[self.headerSize..<(self.headerSize + keyLength)], as: UTF8.self)
        else { return nil }
        let payload = self.read(UInt64.self, bytes, 32)
        guard payload < UInt64(Int.max / 2) else { return nil }
        return Header(
            kind: kind,
            created: Date(timeIntervalSince1970: Double(Int64(bitPattern: self.read(UInt64.self, bytes, 8))) / 1000),
            window: Int64(bitPattern: self.read(UInt64.self, bytes, 16)),
            key: key,
            metaLength: Int(self.read(UInt32.self, bytes, 28)),
            payloadLength: Int(payload),
            crc: self.read(UInt32.self, bytes, 40)
        )
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    private static func read<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8], _ offset: Int) -> T {
        var value = T.zero
        for index in 0..<MemoryLayout<T>.size { value |= T(bytes[offset + index]) << (8 * index) }
        return value
    }
}
