import Foundation
import Hummingbird
import NIOCore

/// Identifies one rendered output: built from validated, normalised parameters only.
struct RenderedImageKey: Sendable, Hashable {
    package let place: Place
    package let window: TimeWindow
    package let photo: SourcePhoto
    package let spec: RenderSpec

    package init(place: Place, window: TimeWindow, photo: SourcePhoto, spec: RenderSpec) {
        self.place = place
        self.window = window
        self.photo = photo
        self.spec = spec
    }

    // A photo is identified by its id (and whether it stands in stale); hashing its whole attribution each request is waste.
    package static func == (a: Self, b: Self) -> Bool {
        a.place == b.place && a.window == b.window && a.photo.id == b.photo.id && a.photo.stale == b.photo.stale && a.spec == b.spec
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(self.place)
        hasher.combine(self.window.index)
        hasher.combine(self.photo.id)
        hasher.combine(self.spec)
    }

    /// The disk cache key: a geohash, numbers, values from fixed sets, and a photo id of digits (checked when parsed).
    var diskKey: String {
        // A density other than 1 adds `/dprN` (its quality differs at the same size); keys from before `dpr` still hold.
        "render/\(self.place.key)/\(self.window.index)/\(self.photo.id)/\(self.spec.size)/\(self.spec.style.rawValue)/\(self.spec.blurHundredths)/\(self.spec.format.rawValue)/\(self.spec.crop.rawValue)"
            + (self.spec.density == .x1 ? "" : "/dpr\(self.spec.density.rawValue)")
    }
}
