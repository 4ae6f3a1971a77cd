/// What to render of a photo: output size, effect style and how much of the effect to show.
public struct RenderSpec: Sendable, Hashable {
    public let size: PixelSize
    public let style: EffectStyle
    /// The blur fraction in hundredths, 0...100.
    public let blurHundredths: Int

    public init(size: PixelSize, style: EffectStyle, blurHundredths: Int) {
        self.size = size
        self.style = style
        self.blurHundredths = min(max(blurHundredths, 0), 100)
    }

    public var blur: Double { Double(self.blurHundredths) / 100 }
}
