/// Photos an operator has taken down (`photos.deny`, for takedowns and licence changes): photo ids as answers name
/// them (`flickr-53012345678`, `stock-003`) and owner ids (a Flickr NSID such as `12345678@N00`, a Commons uploader
/// by name in UTF-8, `commons-user:Jérôme_Dupont`, or by number, `commons-userid:42`).
///
/// A denied photo is never chosen: searches drop it before ranking, a finding shared by another replica or stored
/// before a restart is read without it, and stock photos leave it out. Every cache (renders in memory and on disk,
/// previews) is keyed by the chosen photo, so none of them can serve it either.
package struct PhotoDenylist: Sendable, Equatable {
    let names: Set<String>

    package init(_ names: [String] = []) {
        self.names = Set(names)
    }

    package var isEmpty: Bool { self.names.isEmpty }

    package func denies(_ photo: SourcePhoto) -> Bool {
        self.names.contains(photo.id) || photo.owner.map(self.names.contains) == true
    }

    /// `photos` without the denied ones.
    func allowed(_ photos: [SourcePhoto]) -> [SourcePhoto] {
        self.names.isEmpty ? photos : photos.filter { !self.denies($0) }
    }

    /// Whether `text` can name a photo or an owner: 1 to 300 bytes of UTF-8, no spaces, control or format characters
    /// (a Commons user name, with its spaces written `_`, may be in any script).
    static func isName(_ text: String) -> Bool {
        (1...300).contains(text.utf8.count)
            && text.unicodeScalars.allSatisfy {
                !$0.properties.isWhitespace && ![.control, .format, .unassigned, .surrogate, .privateUse].contains($0.properties.generalCategory)
            }
    }
}
