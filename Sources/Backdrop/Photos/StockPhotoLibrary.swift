import Foundation

/// The stock photos found in a folder at start: JPEGs named `NNN-name.jpg` (a three-digit number, then anything),
/// kept at their own resolution. Gaps in numbering and any count are fine; other files are ignored; two files of one
/// number are refused.
package struct StockPhotoLibrary: Sendable {
    struct Entry: Sendable {
        package let number: Int
        package let file: URL
        package let size: PixelSize
        package let photo: SourcePhoto
        /// The JPEG file's bytes, read once at start (the twelve shipped photos take about 3.5 MB).
        package let bytes: [UInt8]
    }

    let entries: [Entry]

    init(entries: [Entry]) {
        self.entries = entries
    }

    /// Scans `folder`, reads every photo's JPEG header and CREDITS.md; fails, saying why, when the folder is missing,
    /// holds no stock photos, or a photo has no credit or cannot be read as a JPEG within `limits`.
    /// Each photo's id is `idPrefix` and its number (`stock-003`).
    package static func load(folder: URL, limits: DecodeLimits = .init(), idPrefix: String = "stock-") throws -> StockPhotoLibrary {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StockPhotoError("stock photo folder \(folder.path) does not exist")
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var found = [Int: (url: URL, size: PixelSize, bytes: [UInt8])]()
        for name in names.sorted() {
            guard let number = self.photoNumber(fileName: name) else { continue }
            let url = folder.appendingPathComponent(name)
            if let other = found[number] {
                throw StockPhotoError("stock photos \(other.url.lastPathComponent) and \(name) have the same number: keep one")
            }
            found[number] = try self.read(url, limits: limits)
        }
        guard !found.isEmpty else {
            throw StockPhotoError("no stock photos in \(folder.path): expected JPEG files named NNN-name.jpg, such as 000-bridge.jpg")
        }
        let creditsURL = folder.appendingPathComponent("CREDITS.md")
        guard let creditsText = try? String(contentsOf: creditsURL, encoding: .utf8) else {
            throw StockPhotoError("stock photo credits \(creditsURL.path) are missing: every photo needs its author and licence")
        }
        let credits = StockCredits.parse(creditsText)
        let entries = try found.keys.sorted().map { number -> Entry in
            guard let file = found[number] else { throw StockPhotoError("internal: lost stock photo \(number)") }
            guard let credit = credits[number] else {
                throw StockPhotoError("stock photo \(file.url.lastPathComponent) has no row \(String(format: "%03d", number)) in \(creditsURL.path)")
            }
            let photo = SourcePhoto(
                id: idPrefix + String(format: "%03d", number),
                origin: .stock,
                attribution: credit.attribution,
                shown: credit.phase
            )
            return Entry(number: number, file: file.url, size: file.size, photo: photo, bytes: file.bytes)
        }
        return StockPhotoLibrary(entries: entries)
    }

    /// The file's bytes and size, checked by decoding it once at an eighth of its size (libjpeg reads every block
    /// either way, at a sixtieth of the work).
    private static func read(_ url: URL, limits: DecodeLimits) throws -> (url: URL, size: PixelSize, bytes: [UInt8]) {
        let bytes: [UInt8]
        do {
            bytes = try [UInt8](Data(contentsOf: url))
        } catch {
            throw StockPhotoError("cannot read stock photo \(url.path): \(error.localizedDescription)")
        }
        do {
            let header = try JPEGDecoder.header(of: bytes)
            _ = try JPEGDecoder.decode(bytes, covering: PixelSize(width: 1, height: 1), limits: limits)
            return (url, header.uprightSize, bytes)
        } catch {
            throw StockPhotoError("stock photo \(url.path) is not a readable JPEG: \(error)")
        }
    }

    /// The photo number of a stock photo file name (`NNN-name.jpg` or `.jpeg`), or nil for any other file.
    static func photoNumber(fileName: String) -> Int? {
        let lower = fileName.lowercased()
        guard lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") else { return nil }
        let utf8 = Array(fileName.utf8)
        guard utf8.count > 4, utf8[3] == UInt8(ascii: "-"), utf8[0..<3].allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(String(decoding: utf8[0..<3], as: UTF8.self))
    }
}

/// Why the stock photo folder cannot be used.
package struct StockPhotoError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
