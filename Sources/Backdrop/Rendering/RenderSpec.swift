/// What to render of a photo: output size, effect style, how much of the effect to show, the image format, how the
/// photo is cropped, and the screen density it is for.
package struct RenderSpec: Sendable, Hashable {
    /// The render's size in device pixels: `cssSize` times the density.
    package let size: PixelSize
    package let style: EffectStyle
    /// The blur fraction in hundredths, 0...100.
    package let blurHundredths: Int
    package let format: OutputFormat
    let crop: CropMode
    /// The density asked for (`dpr`), which also lowers the lossy formats' quality (``Density``).
    package let density: Density
    /// The size asked for, in CSS pixels (the size itself at density 1).
    package let cssSize: PixelSize

    init(
        size: PixelSize,
        style: EffectStyle,
        blurHundredths: Int,
        format: OutputFormat = .png,
        crop: CropMode = .attention,
        density: Density = .x1,
        cssSize: PixelSize? = nil
    ) {
        self.size = size
        self.style = style
        self.blurHundredths = min(max(blurHundredths, 0), 100)
        self.format = format
        self.crop = crop
        self.density = density
        self.cssSize = cssSize ?? size
    }

    /// A render of `css` CSS pixels at `density`.
    init(css: PixelSize, density: Density, style: EffectStyle, blurHundredths: Int, crop: CropMode) {
        self.init(
            size: PixelSize(width: density.pixels(css.width), height: density.pixels(css.height)),
            style: style,
            blurHundredths: blurHundredths,
            crop: crop,
            density: density,
            cssSize: css
        )
    }

    /// The same render in another format.
    package func with(format: OutputFormat) -> RenderSpec {
        RenderSpec(
            size: self.size,
            style: self.style,
            blurHundredths: self.blurHundredths,
            format: format,
            crop: self.crop,
            density: self.density,
            cssSize: self.cssSize
        )
    }

    /// The same render at another blur.
    package func with(blurHundredths: Int) -> RenderSpec {
        RenderSpec(
            size: self.size,
            style: self.style,
            blurHundredths: blurHundredths,
            format: self.format,
            crop: self.crop,
            density: self.density,
            cssSize: self.cssSize
        )
    }

    /// The same render at another density (the same CSS size).
    func with(density: Density) -> RenderSpec {
        RenderSpec(css: self.cssSize, density: density, style: self.style, blurHundredths: self.blurHundredths, crop: self.crop)
            .with(format: self.format)
    }

    package var blur: Double { Double(self.blurHundredths) / 100 }
}
