import Foundation
import NIOCore

extension DiskCache: PhotoStore {
    private static func photoKey(_ cell: String) -> String { "photo/\(cell)" }
    private static func sourceKey(_ photoID: String, _ variant: String) -> String { "source/\(photoID)/\(variant)" }

    private static func resultsKey(_ cell: String) -> String { "results/\(cell)" }

    package func storedResults(cell: String, window: Int64) async -> Data? {
        guard let entry = self.read(Self.resultsKey(cell)), entry.window == window else { return nil }
        return Data(entry.meta)
    }

    package func storeResults(_ results: Data, cell: String, window: Int64) async {
        self.write(
            CacheEntry(
                kind: .photo,
                created: self.clock.now(),
                window: window,
                key: Self.resultsKey(cell),
                meta: [UInt8](results),
                payload: ByteBuffer()
            )
        )
    }

    package func storedPhoto(cell: String) async -> StoredPhoto? {
        guard let entry = self.read(Self.photoKey(cell)), let photo = try? JSONDecoder().decode(SourcePhoto.self, from: Data(entry.meta)) else {
            return nil
        }
        return StoredPhoto(photo: photo, window: entry.window, created: entry.created)
    }

    package func storePhoto(_ photo: SourcePhoto, cell: String, window: Int64) async {
        guard let meta = try? JSONEncoder().encode(photo) else { return }
        self.write(
            CacheEntry(kind: .photo, created: self.clock.now(), window: window, key: Self.photoKey(cell), meta: [UInt8](meta), payload: ByteBuffer())
        )
    }

    package func sourceImage(photoID: String, variant: String?) async -> [UInt8]? {
        if let variant { return self.read(Self.sourceKey(photoID, variant)).map { Array(buffer: $0.payload) } }
        // The largest stored size: entries of one photo, biggest file first.
        for key in self.keysBySize(of: .source, prefix: "source/\(photoID)/") {
            if let entry = self.read(key) { return Array(buffer: entry.payload) }
        }
        return nil
    }

    package func hasSourceImage(photoID: String) async -> Bool {
        self.hasEntry(of: .source, prefix: "source/\(photoID)/")
    }

    package func storeSourceImage(_ bytes: [UInt8], photoID: String, variant: String) async {
        // Source photos outlive windows (stale serving), so their entries carry no window.
        self.write(
            CacheEntry(
                kind: .source,
                created: self.clock.now(),
                window: 0,
                key: Self.sourceKey(photoID, variant),
                meta: [],
                payload: ByteBuffer(bytes: bytes)
            )
        )
    }
}
