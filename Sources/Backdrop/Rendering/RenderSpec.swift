/// What to render of a photo: output size, effect style, how much of the effect to show, the image format, and how
/// the photo is cropped.
package struct RenderSpec: Sendable, Hashable {
    package let size: PixelSize
    package let style: EffectStyle
    /// The blur fraction in hundredths, 0...100.
    package let blurHundredths: Int
    package let format: OutputFormat
    let crop: CropMode

    init(size: PixelSize, style: EffectStyle, blurHundredths: Int, format: OutputFormat = .png, crop: CropMode = .attention) {
        self.size = size
        self.style = style
        self.blurHundredths = min(max(blurHundredths, 0), 100)
        self.format = format
        self.crop = crop
    }

    /// The same render in another format.
    package func with(format: OutputFormat) -> RenderSpec {
        RenderSpec(size: self.size, style: self.style, blurHundredths: self.blurHundredths, format: format, crop: self.crop)
    }

    /// The same render at another blur.
    package func with(blurHundredths: Int) -> RenderSpec {
        RenderSpec(size: self.size, style: self.style, blurHundredths: blurHundredths, format: self.format, crop: self.crop)
    }

    package var blur: Double { Double(self.blurHundredths) / 100 }
}
