/// Width and height in pixels.
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var pixelCount: Int { self.width * self.height }
    public var description: String { "\(self.width)x\(self.height)" }
}
