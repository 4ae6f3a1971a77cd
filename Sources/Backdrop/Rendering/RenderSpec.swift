/// What to render of a photo: output size, effect style, how much of the effect to show, and the image format.
package struct RenderSpec: Sendable, Hashable {
    package let size: PixelSize
    package let style: EffectStyle
    /// The blur fraction in hundredths, 0...100.
    package let blurHundredths: Int
    package let format: OutputFormat

    package init(size: PixelSize, style: EffectStyle, blurHundredths: Int, format: OutputFormat = .png) {
        self.size = size
        self.style = style
        self.blurHundredths = min(max(blurHundredths, 0), 100)
        self.format = format
    }

    /// The same render in another format.
    package func with(format: OutputFormat) -> RenderSpec {
        RenderSpec(size: self.size, style: self.style, blurHundredths: self.blurHundredths, format: format)
    }

    package var blur: Double { Double(self.blurHundredths) / 100 }
}
