import Foundation

extension StockPhotoLibrary {
    /// The ids of an operator's photos start so (`stock-own-003`), apart from the shipped ones' (`stock-003`).
    static let operatorsPrefix = "stock-own-"
    /// An operator's photo whose long side is shorter is refused: it would be enlarged past the screens it covers.
    static let smallestLongSide = 1024

    /// The operator's own photos (`photos.extraStockFolder`), in the shipped folder's format (`NNN-name.jpg` and a
    /// CREDITS.md table: title, author, licence, licence URL, source, phase), checked whole at start: each must be a
    /// readable JPEG with a long side of at least ``smallestLongSide`` px and a row whose title, author, licence and
    /// source are given, whose licence URL is an http(s) link and whose phase is one of `night`, `twilight`, `golden`
    /// and `day` (the sky it shows, chosen by eye). A photo that fails is refused with an error naming the setting,
    /// the file and the field.
    static func loadOperators(folder: URL, limits: DecodeLimits = .init()) throws -> StockPhotoLibrary {
        let library: StockPhotoLibrary
        do {
            library = try Self.load(folder: folder, limits: limits, idPrefix: Self.operatorsPrefix)
        } catch let error as StockPhotoError {
            throw StockPhotoError("photos.extraStockFolder: \(error.description)")
        }
        for entry in library.entries {
            let name = entry.file.lastPathComponent
            let credit = entry.photo.attribution
            let missing = [
                ("title", credit.title), ("author", credit.author), ("licence", credit.license), ("source", credit.sourceURL),
            ].first { $0.1.trimmingCharacters(in: .whitespaces).isEmpty }
            if let (field, _) = missing {
                throw StockPhotoError("photos.extraStockFolder: \(name): its \(field) is missing in CREDITS.md")
            }
            guard credit.licenseURL.hasPrefix("https://") || credit.licenseURL.hasPrefix("http://") else {
                throw StockPhotoError("photos.extraStockFolder: \(name): its licence URL \"\(credit.licenseURL.prefix(80))\" is not an http(s) link")
            }
            guard entry.photo.shown != nil else {
                throw StockPhotoError("photos.extraStockFolder: \(name): its phase is missing in CREDITS.md: night, twilight, golden or day")
            }
            guard max(entry.size.width, entry.size.height) >= Self.smallestLongSide else {
                throw StockPhotoError(
                    "photos.extraStockFolder: \(name) is too small: \(entry.size.width)x\(entry.size.height), its long side under \(Self.smallestLongSide) px"
                )
            }
        }
        return library
    }
}
