import Foundation

/// The stock photos found in a folder at start, following CoreBackground's naming:
/// `{NNN}-StockPhoto-320x568.png` and `{NNN}-StockPhoto-320x568@2x.png`. Gaps in numbering and any count
/// are fine; for each number the largest file is used; other files are ignored.
package struct StockPhotoLibrary: Sendable {
    package struct Entry: Sendable {
        package let number: Int
        package let file: URL
        package let size: PixelSize
        package let photo: SourcePhoto
        /// The PNG file's bytes, read once at start (the nine shipped photos take a few megabytes).
        package let bytes: [UInt8]
    }

    package let entries: [Entry]

    package init(entries: [Entry]) {
        self.entries = entries
    }

    /// Scans `folder`, reads every candidate's PNG header and CREDITS.md; fails, saying why, when the folder is
    /// missing, holds no stock photos, or a photo has no credit or cannot be decoded.
    package static func load(folder: URL, limits: DecodeLimits = .init()) throws -> StockPhotoLibrary {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StockPhotoError("stock photo folder \(folder.path) does not exist")
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var best = [Int: (url: URL, size: PixelSize, bytes: [UInt8])]()
        for name in names.sorted() {
            guard let number = self.photoNumber(fileName: name) else { continue }
            let url = folder.appendingPathComponent(name)
            let bytes: [UInt8]
            do {
                bytes = try [UInt8](Data(contentsOf: url))
            } catch {
                throw StockPhotoError("cannot read stock photo \(url.path): \(error.localizedDescription)")
            }
            let image: RGBImage
            do {
                image = try PNGDecoder.decode(bytes, limits: limits)
            } catch {
                throw StockPhotoError("stock photo \(url.path) is not a readable PNG: \(error)")
            }
            let size = PixelSize(width: image.width, height: image.height)
            if let current = best[number], current.size.pixelCount >= size.pixelCount { continue }
            best[number] = (url, size, bytes)
        }
        guard !best.isEmpty else {
            throw StockPhotoError(
                "no stock photos in \(folder.path): expected files named NNN-StockPhoto-320x568.png or NNN-StockPhoto-320x568@2x.png"
            )
        }
        let creditsURL = folder.appendingPathComponent("CREDITS.md")
        guard let creditsText = try? String(contentsOf: creditsURL, encoding: .utf8) else {
            throw StockPhotoError("stock photo credits \(creditsURL.path) are missing: every photo needs its author and licence")
        }
        let credits = StockCredits.parse(creditsText)
        let entries = try best.keys.sorted().map { number -> Entry in
            guard let found = best[number] else { throw StockPhotoError("internal: lost stock photo \(number)") }
            guard let attribution = credits[number] else {
                throw StockPhotoError("stock photo \(found.url.lastPathComponent) has no row \(String(format: "%03d", number)) in \(creditsURL.path)")
            }
            let photo = SourcePhoto(id: String(format: "stock-%03d", number), origin: .stock, attribution: attribution)
            return Entry(number: number, file: found.url, size: found.size, photo: photo, bytes: found.bytes)
        }
        return StockPhotoLibrary(entries: entries)
    }

    /// The photo number of a CoreBackground stock photo file name, or nil for any other file.
    static func photoNumber(fileName: String) -> Int? {
        let suffixes = ["-StockPhoto-320x568@2x.png", "-StockPhoto-320x568.png"]
        guard let suffix = suffixes.first(where: { fileName.hasSuffix($0) }) else { return nil }
        let digits = fileName.dropLast(suffix.count)
        guard digits.count == 3, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        return Int(digits)
    }
}

/// Why the stock photo folder cannot be used.
package struct StockPhotoError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
