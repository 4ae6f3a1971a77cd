import Synchronization

/// A prepared photo's light-effect copy, made the first time a render needs it: a sharp render (`blur=0`) never
/// pays for the effect. It is kept at its reduced size (see ``ReducedEffect``) and enlarged by each render that uses
/// it. Renders run on the render pool, so a second render that needs the copy while the first makes it waits on the
/// lock there, never on Swift's cooperative pool.
final class LazyEffect: Sendable {
    /// The effect as a render gets it: reduced (made here), or an image handed in whole.
    enum Copy: Sendable {
        case reduced(ReducedEffect)
        case image(RGBImage)

        var image: RGBImage {
            switch self {
            case .reduced(let reduced): reduced.enlarged()
            case .image(let image): image
            }
        }
    }

    private let sharp: RGBImage
    private let style: EffectStyle
    private let made: Mutex<Copy?>
    /// Bytes the copy holds once made, known before (so that reading it never waits on the lock).
    let byteCount: Int

    init(sharp: RGBImage, style: EffectStyle) {
        self.sharp = sharp
        self.style = style
        self.made = Mutex(nil)
        self.byteCount = ReducedEffect.byteCount(size: PixelSize(width: sharp.width, height: sharp.height), style: style)
    }

    init(made effect: RGBImage) {
        self.sharp = effect
        self.style = .none
        self.made = Mutex(.image(effect))
        self.byteCount = effect.byteCount
    }

    init(sharp: RGBImage, made effect: ReducedEffect) {
        self.sharp = sharp
        self.style = .none
        self.made = Mutex(.reduced(effect))
        self.byteCount = effect.byteCount
    }

    var copy: Copy {
        self.made.withLock { made in
            if let made { return made }
            let effect = Copy.reduced(LightEffect.reduced(self.sharp, style: self.style))
            made = effect
            return effect
        }
    }
}
