/// Width and height in pixels.
package struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    package let width: Int
    package let height: Int

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    package var pixelCount: Int { self.width * self.height }
    package var description: String { "\(self.width)x\(self.height)" }
}
