import Foundation

/// One usable result of `flickr.photos.search`: who owns it, under which licence, and the sizes it offers.
package struct FlickrPhoto: Sendable, Hashable {
    package let id: String
    package let owner: String
    package let ownerName: String
    package let pathAlias: String?
    package let title: String
    package let license: FlickrLicense
    /// Smallest first.
    package let sizes: [PhotoSize]

    /// The photo page Flickr's terms ask an attribution to link to.
    package var pageURL: String {
        let who = (self.pathAlias?.isEmpty == false ? self.pathAlias : nil) ?? self.owner
        return "https://www.flickr.com/photos/\(Self.pathComponent(who))/\(Self.pathComponent(self.id))"
    }

    package var sourcePhoto: SourcePhoto {
        SourcePhoto(
            id: "flickr-\(self.id)",
            origin: .flickr,
            attribution: Attribution(
                title: self.title.isEmpty ? "Untitled" : self.title,
                author: self.ownerName.isEmpty ? self.owner : self.ownerName,
                license: self.license.name,
                licenseURL: self.license.url,
                sourceURL: self.pageURL
            ),
            sizes: self.sizes
        )
    }

    private static func pathComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~@"))) ?? text
    }
}
