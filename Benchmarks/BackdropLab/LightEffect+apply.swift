import Backdrop

extension LightEffect {
    /// The effect at full size in one image, as tests and the bench compare it; the service keeps it reduced and
    /// enlarges it row by row while it blends (``ReducedEffect``).
    package static func apply(to image: RGBImage, style: EffectStyle) -> RGBImage {
        self.reduced(image, style: style).enlarged()
    }
}
