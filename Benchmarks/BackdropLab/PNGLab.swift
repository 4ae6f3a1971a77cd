import Backdrop
import CImagingLab
import NIOCore

/// The PNG writers `make bench` compares with the service's: libpng with zlib, libdeflate at any level, and the scanline
/// deflate alone (without the service's texture fallback), each after any of PNG's filters. The service writes with
/// ``PNGEncoder``.
package struct PNGLab: Sendable, Equatable, CustomStringConvertible {
    package enum Compressor: String, Sendable, CaseIterable {
        case libpng, libdeflate, scanline

        var c: bd_lab_compressor {
            switch self {
            case .libpng: BD_LAB_LIBPNG
            case .libdeflate: BD_LAB_LIBDEFLATE
            case .scanline: BD_LAB_SCANLINE
            }
        }
    }

    package enum Filter: String, Sendable, CaseIterable {
        case none, sub, up, average, paeth
        /// libpng's choice per row: the smallest sum of magnitudes.
        case adaptive
        /// The service's choice per row.
        case upOrPaeth

        var c: bd_lab_filter {
            switch self {
            case .none: BD_LAB_NONE
            case .sub: BD_LAB_SUB
            case .up: BD_LAB_UP
            case .average: BD_LAB_AVERAGE
            case .paeth: BD_LAB_PAETH
            case .adaptive: BD_LAB_ADAPTIVE
            case .upOrPaeth: BD_LAB_UP_OR_PAETH
            }
        }
    }

    package var compressor: Compressor
    /// zlib 0-9 for libpng, 0-12 for libdeflate; the scanline deflate has one.
    package var level: Int
    package var filter: Filter

    package init(_ compressor: Compressor, level: Int = 1, filter: Filter) {
        self.compressor = compressor
        self.level = level
        self.filter = filter
    }

    package var description: String { "\(self.compressor.rawValue) \(self.level) \(self.filter.rawValue)" }

    package func encode(_ image: RGBImage) throws -> ByteBuffer {
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            bd_lab_png_encode(
                pixels.baseAddress,
                Int32(image.width),
                Int32(image.height),
                self.compressor.c,
                Int32(self.level),
                self.filter.c,
                &bytes,
                &length,
                &message,
                message.count
            )
        }
        return try EncodedBytes.take(status: status, bytes: bytes, length: length, message: message) { bd_lab_free($0) }
    }
}
