/// The class of a request's aspect (width / height), for which its photo is chosen: portrait below 4:5, landscape
/// above 5:4, near-square between (both bounds included). A place has one photo per window, variant and class, the
/// same across blur, format and size within the class, so that a page's cross-fade and its cell URLs agree.
package enum ScreenShape: String, Sendable, Hashable, CaseIterable, Codable {
    case portrait, square, landscape

    /// The class of a `width` x `height` screen.
    package init(width: Int, height: Int) {
        if width * 5 < height * 4 {
            self = .portrait
        } else if width * 4 > height * 5 {
            self = .landscape
        } else {
            self = .square
        }
    }

    package init(_ size: PixelSize) { self.init(width: size.width, height: size.height) }

    /// The screen the ranking measures a photo's fit against: a 9:16 phone, a 16:9 desktop, or a square, each at the
    /// size of a common screen of its class (1080x1920, 1920x1080, 1440x1440).
    var reference: PixelSize {
        switch self {
        case .portrait: PixelSize(width: 1080, height: 1920)
        case .square: PixelSize(width: 1440, height: 1440)
        case .landscape: PixelSize(width: 1920, height: 1080)
        }
    }

    /// The share of a `width` x `height` photo that a cover crop to this class's aspect keeps (1 for the same aspect).
    func kept(width: Int, height: Int) -> Double {
        guard width > 0, height > 0 else { return 0 }
        let photo = Double(width) / Double(height)
        let screen = Double(self.reference.width) / Double(self.reference.height)
        return min(photo, screen) / max(photo, screen)
    }

    /// How much a `width` x `height` photo is enlarged to cover this class's reference screen (1 or less: not at all).
    func enlargement(width: Int, height: Int) -> Double {
        guard width > 0, height > 0 else { return .infinity }
        let reference = self.reference
        return max(Double(reference.width) / Double(width), Double(reference.height) / Double(height))
    }
}
