/// The image formats `/background` answers in.
public enum OutputFormat: String, Sendable, Hashable, CaseIterable, Codable {
    case png, jpeg, webp, avif

    public var mediaType: String { "image/\(self.rawValue)" }

    /// The order negotiation prefers among the types a client accepts: smallest files first.
    public static let preference: [OutputFormat] = [.avif, .webp, .jpeg, .png]
}
