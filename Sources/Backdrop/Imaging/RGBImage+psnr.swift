import Foundation

extension RGBImage {
    /// Peak signal-to-noise ratio in dB against `other` (same size): infinity when they are equal.
    package func psnr(against other: RGBImage) -> Double {
        precondition(self.width == other.width && self.height == other.height, "PSNR needs images of one size")
        var sum = 0.0
        for index in self.pixels.indices {
            let difference = Double(self.pixels[index]) - Double(other.pixels[index])
            sum += difference * difference
        }
        return sum == 0 ? .infinity : 10 * log10(255 * 255 * Double(self.pixels.count) / sum)
    }
}
