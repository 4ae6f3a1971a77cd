import Synchronization

/// A prepared photo's light-effect copy, made the first time a render needs it: a sharp render (`blur=0`) never
/// pays for the effect. It is kept at its reduced size (see ``ReducedEffect``) and enlarged by each render that uses
/// it. Renders run on the render pool, so a second render that needs the copy while the first makes it waits on the
/// lock there, never on Swift's cooperative pool.
final class LazyEffect: Sendable {
    private let sharp: RGBImage
    private let style: EffectStyle
    private let made: Mutex<ReducedEffect?>
    /// Bytes the copy holds once made, known before (so that reading it never waits on the lock).
    let byteCount: Int

    init(sharp: RGBImage, style: EffectStyle) {
        self.sharp = sharp
        self.style = style
        self.made = Mutex(nil)
        self.byteCount = ReducedEffect.byteCount(size: PixelSize(width: sharp.width, height: sharp.height), style: style)
    }

    var effect: ReducedEffect {
        self.made.withLock { made in
            if let made { return made }
            let effect = LightEffect.reduced(self.sharp, style: self.style)
            made = effect
            return effect
        }
    }
}
