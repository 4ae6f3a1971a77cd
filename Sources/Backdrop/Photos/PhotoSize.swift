/// One downloadable size of a remote photo.
package struct PhotoSize: Sendable, Hashable, Codable {
    /// Flickr's size suffix: z, c, l, h, k.
    package let label: String
    package let url: String
    package let width: Int
    package let height: Int

    package init(label: String, url: String, width: Int, height: Int) {
        self.label = label
        self.url = url
        self.width = width
        self.height = height
    }

    package var longSide: Int { max(self.width, self.height) }
}
