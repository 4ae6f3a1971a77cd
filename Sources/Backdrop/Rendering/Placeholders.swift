/// The blurred layer in the forms image components already take (expo-image, react-blurhash, Nuke and Kingfisher
/// plug-ins, Unsplash-style `color`), made from the preview's pixels with it and cached with it. Each is coarser
/// than the preview itself; the "Placeholders" table in docs/api.md gives their bytes and how close each comes.
package struct Placeholders: Sendable, Equatable {
    /// ThumbHash, base64.
    package let thumbHash: String
    /// BlurHash, 3 components across and 4 down (``BlurHash/components``).
    package let blurHash: String
    /// The layer's mean colour, `#rrggbb`: averaged in sRGB as a browser's downscale does, the single colour closest
    /// to the layer in the least-squares sense.
    package let color: String

    /// The placeholders of `layer`, the preview's small image.
    package static func make(from layer: RGBImage) -> Placeholders {
        let components = BlurHash.components
        return Placeholders(
            thumbHash: ThumbHash.base64(layer),
            blurHash: BlurHash.encode(layer, x: components.x, y: components.y),
            color: self.meanColor(layer)
        )
    }

    static func meanColor(_ image: RGBImage) -> String {
        var sums = [0, 0, 0]
        for (i, value) in image.pixels.enumerated() { sums[i % 3] += Int(value) }
        let count = image.width * image.height
        return "#"
            + sums.map { sum in
                let hex = String((sum + count / 2) / count, radix: 16)
                return hex.count == 1 ? "0" + hex : hex
            }.joined()
    }
}
