import CDeflate
import Foundation
import NIOCore

/// CRC-32 (as zlib and PNG compute it), by libdeflate: the disk cache's integrity check and the `ETag` of a body.
enum CRC32 {
    /// The CRC-32 of `bytes`, continuing from `start` (0 for a fresh checksum).
    static func checksum(_ bytes: some ContiguousBytes, continuing start: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { raw in
            UInt32(libdeflate_crc32(start, raw.baseAddress, raw.count))
        }
    }

    /// The CRC-32 of `buffer`'s readable bytes.
    static func checksum(_ buffer: ByteBuffer) -> UInt32 {
        buffer.withUnsafeReadableBytes { self.checksum($0) }
    }

    /// The CRC-32 of two byte strings one after the other, from the CRC-32 of each and the second's length (zlib's
    /// `crc32_combine`): the cache file's checksum takes the payload's, computed once for the `ETag`.
    static func combine(_ first: UInt32, _ second: UInt32, secondLength: Int) -> UInt32 {
        self.multiplyModP(self.xToThe8NModP(secondLength), first) ^ second
    }

    /// The reversed CRC-32 polynomial.
    private static let polynomial: UInt32 = 0xedb8_8320

    /// `a` times `b` modulo the polynomial, in the reflected bit order CRC-32 uses.
    private static func multiplyModP(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var (b, product, bit): (UInt32, UInt32, UInt32) = (b, 0, 1 << 31)
        while bit != 0 {
            if a & bit != 0 { product ^= b }
            b = b & 1 != 0 ? (b >> 1) ^ self.polynomial : b >> 1
            bit >>= 1
        }
        return product
    }

    /// x^(2^k) modulo the polynomial, for k in 0..<32.
    private static let powersOfX: [UInt32] = {
        var power: UInt32 = 1 << 30  // x^1
        return (0..<32).map { _ in
            defer { power = multiplyModP(power, power) }
            return power
        }
    }()

    /// x^(8n) modulo the polynomial: what appending n zero bytes multiplies a CRC by.
    private static func xToThe8NModP(_ n: Int) -> UInt32 {
        var (n, k, power): (Int, Int, UInt32) = (n, 3, 1 << 31)
        while n != 0 {
            if n & 1 != 0 { power = self.multiplyModP(self.powersOfX[k & 31], power) }
            n >>= 1
            k += 1
        }
        return power
    }
}
