/// One downloadable size of a remote photo.
public struct PhotoSize: Sendable, Hashable, Codable {
    /// Flickr's size suffix: z, c, l, h, k.
    public let label: String
    public let url: String
    public let width: Int
    public let height: Int

    public init(label: String, url: String, width: Int, height: Int) {
        self.label = label
        self.url = url
        self.width = width
        self.height = height
    }

    public var longSide: Int { max(self.width, self.height) }
}
