import Foundation

/// Reads `StockPhotos/CREDITS.md`: a Markdown table with one row per photo number, the last column the sky the photo
/// shows (`night`, `twilight`, `golden` or `day`; nil when absent or unknown).
///
///     | number | title | author | licence | licence URL | source | phase |
///     |---|---|---|---|---|---|---|
///     | 000 | Bridge | Sander Klootwijk | CC BY-SA 4.0 | https://creativecommons.org/licenses/by-sa/4.0/ | https://... | day |
enum StockCredits {
    struct Row: Sendable, Equatable {
        package let attribution: Attribution
        package let phase: SunPhase?
    }

    package static func parse(_ markdown: String) -> [Int: Row] {
        var credits = [Int: Row]()
        for line in markdown.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("|") else { continue }
            let cells = trimmed.dropFirst().split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 6, cells[0].count == 3, let number = Int(cells[0]) else { continue }
            let (url, note) = Self.source(cells[5])
            let attribution = Attribution(
                title: cells[1],
                author: cells[2],
                license: cells[3],
                licenseURL: cells[4],
                sourceURL: url,
                sourceNote: note
            )
            credits[number] = Row(attribution: attribution, phase: cells.count >= 7 ? SunPhase(group: cells[6]) : nil)
        }
        return credits
    }

    /// The source column split into its URL and what follows it: `https://… (file.jpg, 2019)` gives the URL and
    /// `file.jpg, 2019`.
    static func source(_ cell: String) -> (url: String, note: String?) {
        guard let space = cell.firstIndex(where: \.isWhitespace) else { return (cell, nil) }
        var note = cell[space...].trimmingCharacters(in: .whitespaces)
        if note.hasPrefix("("), note.hasSuffix(")") { note = String(note.dropFirst().dropLast()) }
        return (String(cell[..<space]), note.isEmpty ? nil : note)
    }
}
