@testable import Backdrop

/// Peak signal-to-noise ratio in dB between two images of one size.
func psnr(_ a: RGBImage, _ b: RGBImage) -> Double { a.psnr(against: b) }

func solid(_ width: Int, _ height: Int, _ rgb: (UInt8, UInt8, UInt8)) -> RGBImage {
    var pixels = [UInt8]()
    pixels.reserveCapacity(width * height * 3)
    for _ in 0..<(width * height) { pixels += [rgb.0, rgb.1, rgb.2] }
    return RGBImage(width: width, height: height, pixels: pixels)
}

func near(_ p: (r: UInt8, g: UInt8, b: UInt8), _ q: (Int, Int, Int), tolerance: Int = 12) -> Bool {
    abs(Int(p.r) - q.0) <= tolerance && abs(Int(p.g) - q.1) <= tolerance && abs(Int(p.b) - q.2) <= tolerance
}
