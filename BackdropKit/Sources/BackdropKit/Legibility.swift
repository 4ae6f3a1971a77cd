import Foundation

/// What text reads over a background (`/background.json`'s `legibility`): for the top and bottom bands (15 % of the
/// height each) and the whole of both layers, the contrast of white and of black text and the scrim each needs.
/// ``BackdropScene/text(over:scrollOffset:)`` gives the advice at a scroll position.
public struct Legibility: Sendable, Hashable, Decodable {
    public let sharp: Layer
    public let blurred: Layer

    enum CodingKeys: String, CodingKey, CaseIterable {
        case sharp, blurred
    }

    /// Which part of the picture the text sits on.
    public enum Region: String, Sendable, Hashable, CaseIterable {
        case top, bottom, whole
    }

    public struct Layer: Sendable, Hashable, Decodable {
        public let top: Band
        public let bottom: Band
        public let whole: Band

        enum CodingKeys: String, CodingKey, CaseIterable {
            case top, bottom, whole
        }

        public subscript(region: Region) -> Band {
            switch region {
            case .top: self.top
            case .bottom: self.bottom
            case .whole: self.whole
            }
        }
    }

    /// One region of one layer: which text colour to use, and how each reads.
    public struct Band: Sendable, Hashable, Decodable {
        /// The text colour that needs the lighter scrim.
        public let text: Ink
        public let light: Reading
        public let dark: Reading

        enum CodingKeys: String, CodingKey, CaseIterable {
            case text, light, dark
        }

        public subscript(ink: Ink) -> Reading { ink == .light ? self.light : self.dark }
    }

    /// White (`light`) or black (`dark`) text.
    public enum Ink: String, Sendable, Hashable, Decodable, CaseIterable {
        case light, dark

        /// The text colour itself.
        public var color: BackdropColor { self == .light ? BackdropColor(red: 255, green: 255, blue: 255) : BackdropColor(red: 0, green: 0, blue: 0) }
        /// The scrim's colour behind it: black behind white text, white behind black text.
        public var scrimColor: BackdropColor {
            self == .light ? BackdropColor(red: 0, green: 0, blue: 0) : BackdropColor(red: 255, green: 255, blue: 255)
        }
    }

    /// How one text colour reads over a region.
    public struct Reading: Sendable, Hashable, Decodable {
        /// WCAG 2 contrast ratio against the region's light end (white text) or dark end (black text).
        public let contrast: Double
        /// The least opacity of the scrim (``Ink/scrimColor``) that brings the text to 4.5:1.
        public let scrim: Double

        enum CodingKeys: String, CodingKey, CaseIterable {
            case contrast, scrim
        }
    }

    /// Text advice at a blur fraction (the blurred layer's opacity): the nearer layer's colour, and its scrim's
    /// opacity between the sharp and the blurred layer's.
    public struct Advice: Sendable, Hashable {
        public let ink: Ink
        public let scrimOpacity: Double
    }

    public func advice(for region: Region, blur: Double) -> Advice {
        let blur = min(1, max(0, blur.isNaN ? 0 : blur))
        let (sharp, blurred) = (self.sharp[region], self.blurred[region])
        let ink = blur < 0.5 ? sharp.text : blurred.text
        return Advice(ink: ink, scrimOpacity: sharp[ink].scrim + (blurred[ink].scrim - sharp[ink].scrim) * blur)
    }
}
