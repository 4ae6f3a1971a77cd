import Foundation

/// Serves the stock photo library: one photo per place and window.
public struct StockPhotoSource: PhotoSource {
    public let library: StockPhotoLibrary

    public init(library: StockPhotoLibrary) {
        self.library = library
    }

    public func photo(for place: Place, in window: TimeWindow) async throws -> SourcePhoto {
        self.library.entries[PhotoChoice.index(place: place, window: window, count: self.library.entries.count)].photo
    }

    public func imageData(for photo: SourcePhoto, covering size: PixelSize) async throws -> EncodedImage {
        guard let entry = self.library.entries.first(where: { $0.photo.id == photo.id }) else {
            throw StockPhotoError("unknown stock photo \(photo.id)")
        }
        let bytes = try [UInt8](Data(contentsOf: entry.file))
        return EncodedImage(bytes: bytes, variant: entry.size.description)
    }
}
