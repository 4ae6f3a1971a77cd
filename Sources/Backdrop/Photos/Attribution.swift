/// Credit for a freely licensed photo: who made it, under which licence, where it comes from.
package struct Attribution: Sendable, Hashable, Codable {
    package var title: String
    package var author: String
    package var license: String
    package var licenseURL: String
    /// The photo's page or origin: a plain URL, usable as a link as it is.
    package var sourceURL: String
    /// What identifies the photo at `sourceURL` when the URL alone does not (a stock photo's file name and year), or nil.
    package var sourceNote: String?

    /// Title, author and licence name are made plain lines (``PlainText``), whatever their source sent.
    package init(title: String, author: String, license: String, licenseURL: String, sourceURL: String, sourceNote: String? = nil) {
        self.title = PlainText.line(title)
        self.author = PlainText.line(author)
        self.license = PlainText.line(license, limit: 60)
        self.licenseURL = licenseURL
        self.sourceURL = sourceURL
        self.sourceNote = sourceNote
    }

    /// One line, as a CC licence asks: title, author, licence, and that this copy is modified.
    package var credit: String {
        "\"\(self.title)\" by \(self.author), \(self.license), modified (cropped and blurred)"
    }
}
