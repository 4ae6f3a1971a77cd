import Foundation
import Testing

@testable import Backdrop

/// Issue 59, part 1: the best photos near the place, from Commons' API alone. A stand-in town (``town(seed:)``) in the
/// shape of a city: 700 ordinary files (buses, sculptures, doors, people) within a kilometre of the cell's centre, and a
/// landmark 1.7 km from it (the Eiffel Tower, whose cell's centre lies in the rue de Vaugirard) with 14 photos, 9 of them
/// featured, quality or valued images. The stand-in answers each search by what it asks (``StandInCommons/found(_:query:)``).
@Suite("The best photos of the place")
struct LandmarkTests {
    typealias File = StandInCommons.File

    static let tower = (latitude: 48.8584, longitude: 2.2945)
    static let cell = Geohash(latitude: tower.latitude, longitude: tower.longitude, precision: 5)

    /// The landmark's 14 photos (ids 1…14, the first 9 assessed: 3 featured, 4 quality, 2 valued), each by its own
    /// photographer, and 700 ordinary files (ids 1001…) scattered within a kilometre of the cell's centre, nearer it
    /// than any of the landmark's.
    static func town(seed: UInt64 = 59) -> [File] {
        var generator = SeededGenerator(seed: seed)  // fixed, so that a failure replays
        let assessments = ["featured", "featured", "featured", "quality", "quality", "quality", "quality", "valued", "valued"]
        let landmark = (1...14).map { id -> File in
            var file = File(pageid: id)
            file.name = "Tour Eiffel \(id).jpg"
            (file.width, file.height) = id % 3 == 0 ? (3000, 4500) : (6000, 4000)
            file.gps = (Self.tower.latitude + Double(id % 5) * 0.0004, Self.tower.longitude - Double(id % 4) * 0.0005)
            file.categories = "Eiffel Tower|Views of Paris|Champ de Mars"
            file.assessments = id <= assessments.count ? assessments[id - 1] : nil
            file.user = "Photographer \(id)"
            return file
        }
        let subjects = ["Buses in Paris", "Sculptures in the Louvre", "Doors in Paris", "People of Paris", "Antiquities in the Louvre"]
        let centre = Self.cell.centre
        let ordinary = (0..<700).map { n -> File in
            var file = File(pageid: 1001 + n)
            file.name = "Paris \(n).jpg"
            (file.width, file.height) = n % 2 == 0 ? (3000, 4000) : (4000, 3000)
            // Within a kilometre of the centre: 0.009° of latitude is a kilometre, of longitude at Paris 0.66 km.
            let (north, east) = (Double.random(in: -0.006...0.006, using: &generator), Double.random(in: -0.009...0.009, using: &generator))
            file.gps = (centre.latitude + north, centre.longitude + east)
            file.categories = subjects[n % subjects.count]
            file.user = "Uploader \(n % 40)"
            return file
        }
        return landmark + ordinary
    }

    @Test func theTownIsAsTheIssueDescribesIt() throws {
        let centre = Self.cell.centre
        let distance = Geohash.metres(from: centre, to: Self.tower)
        #expect((1500...1900).contains(distance), "the tower is \(distance) m from its cell's centre")
        let files = Self.town()
        let ordinary = files.filter { $0.pageid > 1000 }.compactMap(\.gps).map { Geohash.metres(from: centre, to: $0) }
        #expect(ordinary.count == 700 && ordinary.allSatisfy { $0 <= 1000 })
        let query = ["generator": "geosearch", "ggscoord": "\(centre.latitude)|\(centre.longitude)", "ggsradius": "10000", "ggslimit": "100"]
        let nearest = StandInCommons.found(files, query: query)
        #expect(nearest.count == 100 && nearest.allSatisfy { $0.pageid > 1000 }, "the 100 nearest files are all ordinary")
    }

    @Test func theLandmarksAssessedPhotosComeFirstAtItsCellInOneCall() async throws {
        let town = Self.town()
        try await CommonsBackdrop.withBackdrop({ _ in [.files(town)] }) { commons, client, _ in
            for (width, height) in [(195, 422), (320, 200)] {  // a phone and a desktop
                var shown = [Int]()
                for variant in 0..<6 {
                    let query = "lat=\(Self.tower.latitude)&lon=\(Self.tower.longitude)&width=\(width)&height=\(height)&variant=\(variant)"
                    let (_, json) = try await TestApp.answerAndJSON(client, query)
                    #expect(json["source"] as? String == "commons")
                    shown.append(Int((json["photoId"] as? String ?? "").dropFirst("commons-".count)) ?? 0)
                }
                #expect(
                    shown.allSatisfy { (1...9).contains($0) },
                    "\(width)x\(height): every variant one of the landmark's assessed photos: \(shown)"
                )
                #expect(Set(shown).count >= 4, "\(width)x\(height): at least four views in six variants: \(shown)")
            }
            #expect(commons.searches.count == 1, "one call: \(commons.searches.map { $0.query["generator"] ?? "" })")
            let search = try #require(commons.assessedSearches.first).query
            #expect(search["gsrnamespace"] == "6" && search["gsrlimit"] == "100")
            let text = search["gsrsearch"] ?? ""
            let (radius, point) = try #require(StandInCommons.nearcoord(text))
            #expect(Geohash.metres(from: point, to: Self.cell.centre) < 1 && radius == (Self.cell.reachMetres + 1000).rounded(.up))
            #expect(StandInCommons.incategory(text) == Set(CommonsFile.assessmentCategories.keys.map { String($0.dropFirst("Category:".count)) }))
        }
    }

    @Test func aPlaceWithoutAssessedFilesGetsTheNearestInThreeCalls() async throws {
        let town = Self.town().filter { $0.pageid > 1000 }
        try await CommonsBackdrop.withBackdrop({ _ in [.files(town)] }) { commons, client, _ in
            let (_, json) = try await TestApp.answerAndJSON(client, "lat=\(Self.tower.latitude)&lon=\(Self.tower.longitude)&width=320&height=200")
            #expect(json["source"] as? String == "commons")
            #expect(commons.assessedSearches.count == 2 && commons.geosearches.count == 1)
            let (_, again) = try await TestApp.answerAndJSON(
                client,
                "lat=\(Self.tower.latitude)&lon=\(Self.tower.longitude)&width=320&height=200&variant=1"
            )
            #expect(again["source"] as? String == "commons" && commons.searches.count == 3, "the day's list serves the cell")
        }
    }

    @Test func aPlaceWithFewAssessedFilesAddsTheWiderOnesAndTheNearestInThreeCalls() async throws {
        // The same town with two assessed photos of the landmark: the cell's reach finds two, the 10 km search the
        // same two, and the nearest files fill the rest; the assessed come first in the candidates' order.
        let town = Self.town().map { file -> File in
            var file = file
            if file.pageid > 2 { file.assessments = nil }
            return file
        }
        try await CommonsBackdrop.withBackdrop({ _ in [.files(town)] }) { commons, client, _ in
            // The window takes its turn among the two assessed and the best of the rest (a pool of four scenes); the
            // order after its pick puts the assessed first.
            var shown = Set<String>()
            for variant in 0..<3 {
                let query = "lat=\(Self.tower.latitude)&lon=\(Self.tower.longitude)&width=320&height=200&variant=\(variant)"
                let (_, json) = try await TestApp.answerAndJSON(client, query)
                #expect(json["source"] as? String == "commons")
                shown.insert(json["photoId"] as? String ?? "")
            }
            #expect(shown.isSuperset(of: ["commons-1", "commons-2"]), "both assessed photos among the first three variants: \(shown)")
            #expect(commons.searches.count == 3 && commons.assessedSearches.count == 2 && commons.geosearches.count == 1)
            let radii = commons.assessedSearches.compactMap { StandInCommons.nearcoord($0.query["gsrsearch"] ?? "")?.0 }.sorted()
            #expect(radii == [(Self.cell.reachMetres + 1000).rounded(.up), 10000])
        }
    }

    /// Issue 59, part 2: a remote place of 100 files, none assessed, 8 of them streets and squares, 4 by one uploader
    /// (the rest buses, sculptures, doors, people and antiquities, nearer the centre): on a phone and a desktop the first
    /// six variants are views.
    @Test func whereNothingIsAssessedTheViewsComeFirst() async throws {
        let centre = Self.cell.centre
        let files = (0..<100).map { n -> File in
            var file = File(pageid: 1001 + n)
            file.name = "Place \(n).jpg"
            (file.width, file.height) = n % 2 == 0 ? (3000, 4000) : (4000, 3000)
            file.gps = (centre.latitude + Double(n) * 0.00002, centre.longitude)
            let subjects = ["Buses in Paris", "Sculptures in the Louvre", "Doors in Paris", "People of Paris", "Antiquities in the Louvre"]
            file.categories = n >= 92 ? (n % 2 == 0 ? "Streets in Paris|Buses in Paris" : "Squares in Paris") : subjects[n % subjects.count]
            file.user = n >= 92 ? "Walker \(n % 4)" : "Uploader \(n)"
            return file
        }
        try await CommonsBackdrop.withBackdrop({ _ in [.files(files)] }) { _, client, _ in
            for (width, height) in [(195, 422), (320, 200)] {
                var shown = [Int]()
                for variant in 0..<6 {
                    let query = "lat=\(centre.latitude)&lon=\(centre.longitude)&width=\(width)&height=\(height)&variant=\(variant)"
                    let (_, json) = try await TestApp.answerAndJSON(client, query)
                    shown.append(Int((json["photoId"] as? String ?? "").dropFirst("commons-".count)) ?? 0)
                }
                #expect(shown.allSatisfy { $0 >= 1093 }, "\(width)x\(height): every variant a street or a square: \(shown)")
            }
        }
    }
}
