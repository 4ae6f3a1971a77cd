import CPixels
import Foundation

/// An 8-bit RGB image, rows top to bottom, pixels interleaved R, G, B with no row padding.
package struct RGBImage: Sendable, Equatable {
    package let width: Int
    package let height: Int
    package var pixels: [UInt8]

    package init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 3, "pixel buffer does not match \(width)x\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// An image whose pixels are written by `initialize`, which must set every byte.
    package init(width: Int, height: Int, initialize: (UnsafeMutableBufferPointer<UInt8>) throws -> Void) rethrows {
        self.width = width
        self.height = height
        self.pixels = try [UInt8](unsafeUninitializedCapacity: width * height * 3) { buffer, count in
            try initialize(buffer)
            count = width * height * 3
        }
    }

    package var byteCount: Int { self.pixels.count }

    package func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let i = (y * self.width + x) * 3
        return (self.pixels[i], self.pixels[i + 1], self.pixels[i + 2])
    }
}

extension RGBImage {
    /// Peak signal-to-noise ratio in dB against `other` (same size): infinity when they are equal.
    package func psnr(against other: RGBImage) -> Double {
        precondition(self.width == other.width && self.height == other.height, "PSNR needs images of one size")
        let sum = self.pixels.withUnsafeBufferPointer { mine in
            other.pixels.withUnsafeBufferPointer { theirs in Double(bd_squared_error(mine.baseAddress, theirs.baseAddress, mine.count)) }
        }
        return sum == 0 ? .infinity : 10 * log10(255 * 255 * Double(self.pixels.count) / sum)
    }
}
