/// The image formats `/background` answers in.
package enum OutputFormat: String, Sendable, Hashable, CaseIterable, Codable {
    case png, jpeg, webp, avif

    package var mediaType: String { "image/\(self.rawValue)" }

    /// The order negotiation prefers among the types a client accepts: smallest files first.
    package static let preference: [OutputFormat] = [.avif, .webp, .jpeg, .png]
}
