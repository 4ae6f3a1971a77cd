import Foundation

/// What the Flickr source keeps on disk: each cell's chosen photo (so a restart keeps the photo and makes no new
/// search in the window, and so an expired one can stand in when Flickr fails) and the downloaded source JPEGs.
package protocol PhotoStore: Sendable {
    /// The last photo chosen for `cell`, with the window it was chosen in and when.
    func storedPhoto(cell: String) async -> StoredPhoto?
    func storePhoto(_ photo: SourcePhoto, cell: String, window: Int64) async
    /// A downloaded size of a photo; with `variant` nil, the largest size stored.
    func sourceImage(photoID: String, variant: String?) async -> [UInt8]?
    /// Whether some size of the photo is stored, without reading it.
    func hasSourceImage(photoID: String) async -> Bool
    func storeSourceImage(_ bytes: [UInt8], photoID: String, variant: String) async
}

package struct StoredPhoto: Sendable {
    package let photo: SourcePhoto
    package let window: Int64
    package let created: Date
}
