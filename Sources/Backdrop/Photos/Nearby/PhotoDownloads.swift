import Foundation

/// A remote photo's bytes in the size a render needs: from the photo store (a restart, another replica's
/// download kept on a shared volume), from memory, or downloaded once however many requests ask at the same time,
/// then kept. A stale photo, standing in because its source is failing, takes any size stored rather than wait on it.
struct PhotoDownloads: Sendable {
    let downloader: any ImageDownloading
    let store: (any PhotoStore)?
    let metrics: BackdropMetrics
    let memory: MemoryLRU<String, [UInt8]>

    init(downloader: any ImageDownloading, memoryMB: Int, context: PhotoContext) {
        self.downloader = downloader
        self.store = context.store
        self.metrics = context.metrics
        self.memory = MemoryLRU(budget: memoryMB << 20, maxEntries: 4096) { $0.count + 256 }
    }

    /// The bytes for `client`'s request (a download is charged to its share of the media budget).
    func imageData(for photo: SourcePhoto, covering size: PixelSize, client: RequestClient) async throws -> EncodedImage {
        guard let variant = photo.size(covering: size) else { throw DownloadError(.failed, "photo \(photo.id) has no sizes") }
        if let bytes = await self.store?.sourceImage(photoID: photo.id, variant: variant.label) {
            self.metrics.cache(.hit, kind: "source")
            return EncodedImage(bytes: bytes, variant: variant.label)
        }
        // A stale photo stands in because its source is failing: any stored size beats another wait on it.
        if photo.stale, let bytes = await self.store?.sourceImage(photoID: photo.id, variant: nil) {
            return EncodedImage(bytes: bytes, variant: "stored")
        }
        let (downloader, store) = (self.downloader, self.store)
        do {
            let bytes = try await self.memory.value(for: variant.url) {
                let bytes = try await withRequestSpan("\(photo.origin.rawValue).download") { span in
                    span.attributes["backdrop.photo.size"] = variant.label
                    span.attributes["server.address"] = URL(string: variant.url)?.host ?? ""
                    let bytes = try await downloader.download(variant.url, for: client)
                    span.attributes["backdrop.bytes"] = bytes.count
                    return bytes
                }
                await store?.storeSourceImage(bytes, photoID: photo.id, variant: variant.label)
                return bytes
            }
            return EncodedImage(bytes: bytes, variant: variant.label)
        } catch {
            // A stale photo may have a stored size other than the one asked for: better than nothing.
            if photo.stale, let bytes = await self.store?.sourceImage(photoID: photo.id, variant: nil) {
                return EncodedImage(bytes: bytes, variant: "stored")
            }
            throw error
        }
    }
}
