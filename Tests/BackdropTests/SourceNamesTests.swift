import Foundation
import Testing

@testable import Backdrop

/// One list of sources (issue 62): the names ``PhotoOrigin`` gives are the ones the settings take and the shipped
/// configuration lists, the OpenAPI description's enums say, BackdropKit's `Background.Source` constants hold and the
/// docs name. A source added to the enum and not to one of these fails here.
@Suite("Source names")
struct SourceNamesTests {
    static let labels = Set(PhotoOrigin.allCases.flatMap(\.labels))

    static func text(_ path: String) throws -> String {
        try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The items of the `enum: [...]` within five lines after a line that ends with `marker` (the definition, not a
    /// reference to it).
    static func enumItems(in text: String, after marker: String) throws -> Set<String> {
        let lines = text.components(separatedBy: "\n")
        let definitions = lines.indices.filter { lines[$0].hasSuffix(marker) }
        let line = try #require(
            definitions.lazy.compactMap { start in lines[start..<min(start + 6, lines.count)].first { $0.contains("enum: [") } }.first,
            "an enum after \(marker)"
        )
        let list = try #require(line.components(separatedBy: "enum: [").last?.components(separatedBy: "]").first)
        return Set(
            list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        )
    }

    @Test func theSettingsTakeEveryNameInTheLinesOrder() throws {
        #expect(Settings().photos.sources == PhotoOrigin.allCases)
        let names = PhotoOrigin.allCases.map(\.rawValue)
        let listed = try ConfigText.parse(#"{"photos": {"sources": [\#(names.map { "\"\($0)\"" }.joined(separator: ", "))]}}"#)
        #expect(listed.photos.sources == PhotoOrigin.allCases)
        let refusal = ConfigText.configError(#"{"photos": {"sources": ["unsplash", "stock"]}}"#)
        #expect(refusal?.key == "photos.sources" && names.allSatisfy { "\(refusal.map { "\($0)" } ?? "")".contains($0) })
        let shipped = try #require(try JSONSerialization.jsonObject(with: Data(Self.text("config.json").utf8)) as? [String: [String: Any]])
        #expect(shipped["photos"]?["sources"] as? [String] == names)
    }

    /// The keys every nearby source has are read by one reader (``Settings/NearbySource``): the same ranges in each
    /// section (Flickr's cache once took 1 to 65536 MB where Commons' took 0 to 4096).
    @Test(arguments: ["flickr", "commons"])
    func everyNearbySourceReadsItsSharedKeysWithTheSameRanges(_ source: String) throws {
        for (key, good, bad) in [("downloadCacheMB", "0", "4097"), ("maxDownloadMB", "200", "201"), ("connectTimeoutSeconds", "60", "61")] {
            #expect(ConfigText.configError(#"{"\#(source)": {"\#(key)": \#(good)}}"#) == nil, "\(source).\(key) \(good)")
            #expect(ConfigText.configError(#"{"\#(source)": {"\#(key)": \#(bad)}}"#)?.key == "\(source).\(key)", "\(source).\(key) \(bad)")
        }
        let hosts = try ConfigText.parse(#"{"\#(source)": {"extraImageHosts": ["mirror.example.org"], "totalTimeoutSeconds": 2}}"#)
        let nearby = source == "flickr" ? hosts.flickr.nearby : hosts.commons.nearby
        #expect(nearby.extraImageHosts == ["mirror.example.org"] && nearby.totalTimeout == .seconds(2))
    }

    @Test func theOpenAPIDescriptionSaysEveryLabelAndNoOther() throws {
        let description = try Self.text("Public/openapi.yaml")
        #expect(try Self.enumItems(in: description, after: "X-Backdrop-Source:") == Self.labels)
        #expect(try Self.enumItems(in: description, after: "BackgroundInfo:") == Self.labels)
    }

    @Test func backdropKitHoldsEveryLabelAndNoOther() throws {
        let source = try Self.text("BackdropKit/Sources/BackdropKit/Background.swift")
        let constants = source.components(separatedBy: "Source(rawValue: \"").dropFirst().compactMap { $0.components(separatedBy: "\"").first }
        #expect(Set(constants) == Self.labels && constants.count == Self.labels.count, "\(constants)")
    }

    @Test func theDocsNameEverySource() throws {
        let configuration = try Self.text("docs/configuration.md")
        let names = PhotoOrigin.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        #expect(configuration.contains("| `photos.sources` | `[\(names)]` |"))
        let api = try Self.text("docs/api.md")
        let header = try #require(api.components(separatedBy: "\n").first { $0.hasPrefix("| `X-Backdrop-Source` |") })
        #expect(Self.labels.allSatisfy { header.contains("`\($0)`") }, "\(header)")
    }
}
