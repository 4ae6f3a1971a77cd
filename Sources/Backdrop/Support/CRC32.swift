import CDeflate
import Foundation

/// CRC-32 (as zlib and PNG compute it), by libdeflate: the disk cache's integrity check and the `ETag` of a body.
enum CRC32 {
    /// The CRC-32 of `bytes`, continuing from `start` (0 for a fresh checksum).
    static func checksum(_ bytes: some ContiguousBytes, continuing start: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { raw in
            UInt32(libdeflate_crc32(start, raw.baseAddress, raw.count))
        }
    }
}
