/// Credit for a freely licensed photo: who made it, under which licence, where it comes from.
public struct Attribution: Sendable, Hashable, Codable {
    public var title: String
    public var author: String
    public var license: String
    public var licenseURL: String
    /// The photo's page or origin.
    public var sourceURL: String

    public init(title: String, author: String, license: String, licenseURL: String, sourceURL: String) {
        self.title = title
        self.author = author
        self.license = license
        self.licenseURL = licenseURL
        self.sourceURL = sourceURL
    }

    /// One line, as a CC licence asks: title, author, licence, and that this copy is modified.
    public var credit: String {
        "\"\(self.title)\" by \(self.author), \(self.license), modified (cropped and blurred)"
    }
}
