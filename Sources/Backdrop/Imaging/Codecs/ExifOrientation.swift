/// EXIF orientation (tag 0x0112): how the stored pixels must be turned to show the picture upright.
enum ExifOrientation: Int, Sendable, CaseIterable {
    case up = 1
    case upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// Orientations 5-8 swap width and height.
    package var swapsAxes: Bool { self.rawValue >= 5 }

    /// Reads the orientation from a TIFF-structured EXIF payload; anything unreadable counts as `.up`.
    package init(exif bytes: UnsafeRawBufferPointer) {
        self = Self.parse(bytes) ?? .up
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer) -> ExifOrientation? {
        guard bytes.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= bytes.count else { return nil }
            let a = Int(bytes[offset])
            let b = Int(bytes[offset + 1])
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func u32(_ offset: Int) -> Int? {
            guard let low = u16(littleEndian ? offset : offset + 2), let high = u16(littleEndian ? offset + 2 : offset) else { return nil }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for index in 0..<min(count, 512) {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112 {
                guard u16(entry + 2) == 3, let value = u16(entry + 8) else { return nil }
                return ExifOrientation(rawValue: value)
            }
        }
        return nil
    }

    /// Turns `image` upright.
    package func apply(to image: RGBImage) -> RGBImage {
        if self == .up { return image }
        let sw = image.width
        let sh = image.height
        let dw = self.swapsAxes ? sh : sw
        let dh = self.swapsAxes ? sw : sh
        return image.pixels.withUnsafeBufferPointer { source in
            RGBImage(width: dw, height: dh) { destination in
                for y in 0..<dh {
                    for x in 0..<dw {
                        let (sx, sy) = self.sourcePoint(x: x, y: y, sourceWidth: sw, sourceHeight: sh)
                        let s = (sy * sw + sx) * 3
                        let d = (y * dw + x) * 3
                        destination[d] = source[s]
                        destination[d + 1] = source[s + 1]
                        destination[d + 2] = source[s + 2]
                    }
                }
            }
        }
    }

    /// The stored pixel shown at (x, y) of the upright picture.
    private func sourcePoint(x: Int, y: Int, sourceWidth w: Int, sourceHeight h: Int) -> (Int, Int) {
        switch self {
        case .up: (x, y)
        case .upMirrored: (w - 1 - x, y)
        case .down: (w - 1 - x, h - 1 - y)
        case .downMirrored: (x, h - 1 - y)
        case .leftMirrored: (y, x)
        case .right: (y, h - 1 - x)
        case .rightMirrored: (w - 1 - y, h - 1 - x)
        case .left: (w - 1 - y, x)
        }
    }
}
