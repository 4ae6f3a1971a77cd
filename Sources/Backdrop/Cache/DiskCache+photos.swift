import Foundation

/// What the Flickr source keeps on disk: each cell's chosen photo (so a restart keeps the photo and makes no new
/// search in the window, and so an expired one can stand in when Flickr fails) and the downloaded source JPEGs.
public protocol PhotoStore: Sendable {
    /// The last photo chosen for `cell`, with the window it was chosen in and when.
    func storedPhoto(cell: String) async -> StoredPhoto?
    func storePhoto(_ photo: SourcePhoto, cell: String, window: Int64) async
    /// A downloaded size of a photo; with `variant` nil, the largest size stored.
    func sourceImage(photoID: String, variant: String?) async -> [UInt8]?
    func storeSourceImage(_ bytes: [UInt8], photoID: String, variant: String) async
}

public struct StoredPhoto: Sendable {
    public let photo: SourcePhoto
    public let window: Int64
    public let created: Date
}

extension DiskCache: PhotoStore {
    private static func photoKey(_ cell: String) -> String { "photo/\(cell)" }
    private static func sourceKey(_ photoID: String, _ variant: String) -> String { "source/\(photoID)/\(variant)" }

    public func storedPhoto(cell: String) async -> StoredPhoto? {
        guard let entry = self.read(Self.photoKey(cell)), let photo = try? JSONDecoder().decode(SourcePhoto.self, from: Data(entry.meta)) else {
            return nil
        }
        return StoredPhoto(photo: photo, window: entry.window, created: entry.created)
    }

    public func storePhoto(_ photo: SourcePhoto, cell: String, window: Int64) async {
        guard let meta = try? JSONEncoder().encode(photo) else { return }
        self.write(CacheEntry(kind: .photo, created: self.clock.now(), window: window, key: Self.photoKey(cell), meta: [UInt8](meta), payload: []))
    }

    public func sourceImage(photoID: String, variant: String?) async -> [UInt8]? {
        if let variant { return self.read(Self.sourceKey(photoID, variant))?.payload }
        // The largest stored size: entries of one photo, biggest file first.
        for key in self.keysBySize(of: .source, prefix: "source/\(photoID)/") {
            if let payload = self.read(key)?.payload { return payload }
        }
        return nil
    }

    public func storeSourceImage(_ bytes: [UInt8], photoID: String, variant: String) async {
        // Source photos outlive windows (stale serving), so their entries carry no window.
        self.write(CacheEntry(kind: .source, created: self.clock.now(), window: 0, key: Self.sourceKey(photoID, variant), meta: [], payload: bytes))
    }
}
