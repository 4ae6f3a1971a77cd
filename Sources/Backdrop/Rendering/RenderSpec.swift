/// What to render of a photo: output size, effect style, how much of the effect to show, and the image format.
public struct RenderSpec: Sendable, Hashable {
    public let size: PixelSize
    public let style: EffectStyle
    /// The blur fraction in hundredths, 0...100.
    public let blurHundredths: Int
    public let format: OutputFormat

    public init(size: PixelSize, style: EffectStyle, blurHundredths: Int, format: OutputFormat = .png) {
        self.size = size
        self.style = style
        self.blurHundredths = min(max(blurHundredths, 0), 100)
        self.format = format
    }

    /// The same render in another format.
    public func with(format: OutputFormat) -> RenderSpec {
        RenderSpec(size: self.size, style: self.style, blurHundredths: self.blurHundredths, format: format)
    }

    public var blur: Double { Double(self.blurHundredths) / 100 }
}
