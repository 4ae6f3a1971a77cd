import Foundation

/// The image formats Backdrop encodes, in the order it prefers them when a client takes several.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, Codable {
    case avif
    case webp
    case jpeg
    case png

    public var mediaType: String { "image/\(self.rawValue)" }

    /// The formats this platform's system image decoders read: AVIF from iOS 16 and macOS 13 (ImageIO), WebP from
    /// iOS 14 and macOS 11; elsewhere (Linux) every format, for the caller's own decoder to choose from.
    public static var decodableHere: [ImageFormat] {
        #if canImport(ImageIO)
        if #available(iOS 16, macOS 13, tvOS 16, watchOS 9, *) { return ImageFormat.allCases }
        return [.webp, .jpeg, .png]
        #else
        return ImageFormat.allCases
        #endif
    }

    /// The first of `formats` in Backdrop's order (AVIF, WebP, JPEG, PNG); PNG, which every decoder reads, when
    /// `formats` is empty.
    public static func preferred(among formats: some Sequence<ImageFormat>) -> ImageFormat {
        let formats = Set(formats)
        return ImageFormat.allCases.first { formats.contains($0) } ?? .png
    }

    init?(contentType: String?) {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased(),
            let format = ImageFormat.allCases.first(where: { $0.mediaType == type })
        else { return nil }
        self = format
    }
}

/// The light effect's style, as the API's `style` names it.
public enum BackgroundStyle: String, Sendable, Hashable, CaseIterable, Codable {
    case light
    case extralight
    case dark
    case none
}

/// How the service crops the photo to the requested shape: around its subject (`attention`, the service's default) or
/// at its centre.
public enum BackgroundCrop: String, Sendable, Hashable, CaseIterable, Codable {
    case attention
    case centre
}
