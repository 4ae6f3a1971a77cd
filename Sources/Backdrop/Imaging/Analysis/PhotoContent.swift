/// What a photo shows that a background should not: skin filling the frame, faces. Measured on the quality gate's
/// reduced copy (``PhotoQuality``), once per photo prepared, never per render.
package struct PhotoContent: Sendable, Equatable {
    /// The share of skin-like pixels (``SkinTone``, luminance over 5 %) past which a photo is turned down: a net under
    /// the category list for nudity no category names. The likeness is the attention crop's, which sand, dry grass
    /// and a pink sky share with skin: the stock and anchor photos reach 0.35 (Infinite Sea, Seeding), so the guard
    /// can only catch a frame filled with skin, a close-up.
    static let skinLimit = 0.5
    /// Faces (``FaceDetector``, 24 px or more on the reduced copy: about a tenth of its long side) that make a photo
    /// one of people: more than ``peopleFaces`` of them, or covering more than ``peopleShare`` of the frame (a head
    /// and shoulders portrait's face covers 4 %, the tests' astronaut).
    static let peopleFaces = 2
    static let peopleShare = 0.02

    /// Share of skin-like pixels.
    package let skin: Double
    /// Faces found, and the share of the frame they cover.
    package let faces: Int
    package let faceShare: Double

    /// Whether faces fill the photo: a photo of people, not of the place.
    package var showsPeople: Bool { self.faces > Self.peopleFaces || self.faceShare > Self.peopleShare }

    /// The measures of `small`, a photo's reduced copy.
    package init(_ small: RGBImage) {
        let count = small.width * small.height
        var skin = 0
        small.pixels.withUnsafeBufferPointer { pixels in
            for index in 0..<count {
                let (x, y, z) = SkinTone.xyz(pixels[3 * index], pixels[3 * index + 1], pixels[3 * index + 2])
                if y > 5, SkinTone.likeness(x: x, y: y, z: z) >= SkinTone.threshold { skin += 1 }
            }
        }
        let boxes = FaceDetector(cascade: .frontalFace).faces(in: Self.gray(small), width: small.width, height: small.height)
        let area = boxes.reduce(0) { total, box in
            let width = min(box.x + box.width, small.width) - max(box.x, 0)
            let height = min(box.y + box.height, small.height) - max(box.y, 0)
            return total + max(0, width) * max(0, height)
        }
        self.skin = Double(skin) / Double(max(1, count))
        self.faces = boxes.count
        self.faceShare = Double(area) / Double(max(1, count))
    }

    /// The luminance the cascade was trained on: Rec. 601 weights, rounded as OpenCV's grey conversion rounds them.
    static func gray(_ image: RGBImage) -> [UInt8] {
        image.pixels.withUnsafeBufferPointer { pixels in
            (0..<(image.width * image.height)).map { index in
                let weighted: Int = 4899 * Int(pixels[3 * index]) + 9617 * Int(pixels[3 * index + 1]) + 1868 * Int(pixels[3 * index + 2])
                return UInt8((weighted + 8192) >> 14)
            }
        }
    }
}
