import Foundation
import Testing

@testable import Backdrop

/// How the stand-in Commons answers a search by what it asks, as MediaWiki does: `generator=search` with CirrusSearch's
/// `nearcoord:RADIUSm,LAT,LON` and `incategory:"A|B|C"` finds the files in one of those categories whose primary
/// coordinates lie within the radius (in the order given, as CirrusSearch's is its own); `generator=geosearch` with
/// `ggscoord` and `ggsradius` lists those within the radius, nearest first; each at most its limit.
extension StandInCommons {
    func filesAnswer(_ files: [File], query: [String: String]) -> String {
        self.searchJSON(Self.found(files, query: query))
    }

    static func found(_ files: [File], query: [String: String]) -> [File] {
        if query["generator"] == "search" {
            guard let search = query["gsrsearch"], let (radius, point) = Self.nearcoord(search) else { return [] }
            let asked = Self.incategory(search)
            let limit = Int(query["gsrlimit"] ?? "") ?? 10
            let within = files.filter { file in
                guard let gps = file.gps, Geohash.metres(from: point, to: gps) <= radius else { return false }
                let categories = (file.assessments ?? "").split(separator: "|").compactMap { Self.assessmentCategories[String($0)] }
                return categories.contains { asked.contains(String($0.dropFirst("Category:".count))) }
            }
            return Array(within.prefix(limit))
        }
        let parts = (query["ggscoord"] ?? "").split(separator: "|").compactMap { Double($0) }
        guard parts.count == 2, let radius = Double(query["ggsradius"] ?? "") else { return [] }
        let point = (latitude: parts[0], longitude: parts[1])
        let limit = Int(query["ggslimit"] ?? "") ?? 10
        let placed = files.compactMap { file in file.gps.map { (file, Geohash.metres(from: point, to: $0)) } }
        return placed.filter { $0.1 <= radius }.sorted { $0.1 < $1.1 }.prefix(limit).map(\.0)
    }

    /// The radius in metres and the point of `nearcoord:` in a search's text (`m` and `km` only).
    static func nearcoord(_ search: String) -> (Double, (latitude: Double, longitude: Double))? {
        guard let range = search.range(of: #"nearcoord:(\d+)(m|km),(-?[\d.]+),(-?[\d.]+)"#, options: .regularExpression) else { return nil }
        let fields = search[range].dropFirst("nearcoord:".count).split(separator: ",")
        let distance = fields[0]
        let metres = distance.hasSuffix("km") ? (Double(distance.dropLast(2)) ?? 0) * 1000 : Double(distance.dropLast()) ?? 0
        guard let latitude = Double(fields[1]), let longitude = Double(fields[2]) else { return nil }
        return (metres, (latitude, longitude))
    }

    /// The categories named by `incategory:"A|B"` (or unquoted, `_` for spaces).
    static func incategory(_ search: String) -> Set<String> {
        guard let start = search.range(of: "incategory:") else { return [] }
        let rest = search[start.upperBound...]
        let value = rest.hasPrefix("\"") ? rest.dropFirst().prefix { $0 != "\"" } : rest.prefix { $0 != " " }
        return Set(value.split(separator: "|").map { $0.replacingOccurrences(of: "_", with: " ") })
    }

    /// A canned answer as an assessed search finds it: its files in an assessment category (``searchJSON(_:)`` lists
    /// those a file's assessments put it in, as `clcategories` does), in their order; any other answer as it is.
    static func assessedOnly(_ text: String) -> String {
        guard var answer = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            var query = answer["query"] as? [String: Any]
        else { return text }
        let assessed = { (page: Any) -> Bool in
            let categories = ((page as? [String: Any])?["categories"] as? [[String: Any]]) ?? []
            return categories.contains { Self.assessmentCategories.values.contains($0["title"] as? String ?? "") }
        }
        let kept: Int
        if let pages = query["pages"] as? [Any] {
            query["pages"] = pages.filter(assessed)
            kept = pages.filter(assessed).count
        } else if let pages = query["pages"] as? [String: Any] {
            query["pages"] = pages.filter { assessed($0.value) }
            kept = pages.filter { assessed($0.value) }.count
        } else {
            kept = 0
        }
        // A search that finds nothing answers with no `query` at all, as MediaWiki's does.
        answer["query"] = kept > 0 ? query : nil
        guard let data = try? JSONSerialization.data(withJSONObject: answer) else { return text }
        return String(decoding: data, as: UTF8.self)
    }
}
