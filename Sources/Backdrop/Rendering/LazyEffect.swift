import Synchronization

/// A prepared photo's light-effect copy, made the first time a render needs it: a sharp render (`blur=0`) never
/// pays for the effect. Renders run on the render pool, so a second render that needs the copy while the first
/// makes it waits on the lock there, never on Swift's cooperative pool.
final class LazyEffect: Sendable {
    private let sharp: RGBImage
    private let style: EffectStyle
    private let made: Mutex<RGBImage?>

    init(sharp: RGBImage, style: EffectStyle) {
        self.sharp = sharp
        self.style = style
        self.made = Mutex(nil)
    }

    init(made effect: RGBImage) {
        self.sharp = effect
        self.style = .none
        self.made = Mutex(effect)
    }

    var image: RGBImage {
        self.made.withLock { made in
            if let made { return made }
            let effect = LightEffect.apply(to: self.sharp, style: self.style)
            made = effect
            return effect
        }
    }
}
