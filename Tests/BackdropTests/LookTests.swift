import Foundation
import Testing

@testable import Backdrop

/// Near-duplicates by look (issue 50, part 5): the 64-bit difference hash of a photo's thumbnail, fetched after the
/// first answer (issue 58, part 1), kept with its results, and counted by the ranking as one scene whoever uploaded it.
@Suite("Looks")
struct LookTests {
    typealias File = StandInCommons.File

    /// Every real photo the tests have (the stock photos, the test photos, the fixtures' photos), as the bytes of its
    /// file.
    static func photos() throws -> [(name: String, bytes: [UInt8])] {
        let fixtures = Fixtures.repositoryRoot.appendingPathComponent("Tests/BackdropTests/Fixtures")
        return try [Fixtures.stockFolder, Fixtures.photoFolder, fixtures].flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { $0.hasSuffix(".jpg") && !$0.hasPrefix("orient-") && !$0.hasSuffix("-red.jpg") }.sorted()
                .map { ($0, try [UInt8](Data(contentsOf: folder.appendingPathComponent($0)))) }
        }
    }

    /// Its thumbnail's look: decoded at the smallest DCT scale covering 120 px, as a source's thumbnail is small.
    static func look(_ bytes: [UInt8]) throws -> LookHash {
        LookHash(try JPEGDecoder.decode(bytes, covering: PixelSize(width: 120, height: 120)))
    }

    /// The look of someone else's upload of it: twice the size, brighter, encoded again at a low quality.
    static func copysLook(_ bytes: [UInt8]) throws -> LookHash {
        let larger = try JPEGDecoder.decode(bytes, covering: PixelSize(width: 240, height: 240))
        return LookHash(try JPEGDecoder.decode(Array(buffer: try JPEGEncoder.encode(StandInCommons.brightened(larger, by: 12), quality: 50))))
    }

    /// Copies of a photograph are within the threshold of it; of all the pictures the tests have, only those of one
    /// picture are within it of each other.
    @Test func aCopyIsNearItsPhotoAndEveryOtherPhotoFar() throws {
        let photos = try Self.photos()
        #expect(photos.count >= 30)
        let looks = try photos.map { try Self.look($0.bytes) }
        // The photographs (not the fixtures drawn by a script: near-black night scenes and smooth gradients, whose
        // neighbouring areas differ by less than a copy's noise, so that a copy of them can read 11 to 20 bits off).
        let drawn = ["night-", "gray", "progressive", "restart"]
        for (index, photo) in photos.enumerated() where !drawn.contains(where: photo.name.hasPrefix) {
            let distance = looks[index].distance(to: try Self.copysLook(photo.bytes))
            #expect(distance <= LookHash.nearDuplicate, "\(photo.name): its copy is \(distance) bits away")
        }
        var near = [String]()
        for a in photos.indices {
            for b in photos.indices where a < b && looks[a].isNearDuplicate(of: looks[b]) {
                near.append("\(photos[a].name)~\(photos[b].name)")
            }
        }
        // One photograph cropped two ways (KDE's Darkest Hour, as a portrait and a landscape), the fixture photo and
        // itself blurred, and one drawn picture saved three ways. The closest pair of different photographs (two
        // evening landscapes, 018 and 022) is 10 bits apart.
        #expect(
            near == [
                "009-darkest-hour.jpg~022-darkest-hour-landscape.jpg", "blurred-photo.jpg~flickr-photo.jpg", "gray.jpg~progressive.jpg",
                "gray.jpg~restart.jpg", "progressive.jpg~restart.jpg",
            ],
            "\(near)"
        )
    }

    @Test func aLookIsKeptAsSixteenHexDigitsAndResultsKeptBeforeLooksStillRead() throws {
        let look = LookHash(bits: 0xF000_0000_0000_0001)
        let json = try JSONEncoder().encode([look])
        #expect(String(decoding: json, as: UTF8.self) == #"["f000000000000001"]"#)
        #expect(try JSONDecoder().decode([LookHash].self, from: json) == [look], "exact past 2^53")
        for bad in [#"["f00"]"#, #"["zz00000000000001"]"#, "[17]"] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode([LookHash].self, from: Data(bad.utf8)) }
        }
        var candidate = try #require(try CommonsBackdrop.parse([File(pageid: 1)]).first)
        #expect(candidate.thumbnail?.contains("/120px-Tour_Eiffel_vue_du_Trocad%C3%A9ro.jpg?utm_source=") == true)
        candidate.facts.look = look
        let stored = try JSONEncoder().encode([candidate])
        #expect(try JSONDecoder().decode([CandidatePhoto].self, from: stored) == [candidate])
        // What a replica kept before looks: no `thumbnail`, no `look`.
        var old = try #require(try JSONSerialization.jsonObject(with: stored) as? [[String: Any]])
        old[0]["thumbnail"] = nil
        var facts = try #require(old[0]["facts"] as? [String: Any])
        facts["look"] = nil
        old[0]["facts"] = facts
        let read = try JSONDecoder().decode([CandidatePhoto].self, from: try JSONSerialization.data(withJSONObject: old))
        #expect(read.first?.thumbnail == nil && read.first?.facts.look == nil && read.first?.photo == candidate.photo)
    }

    @Test func twoOwnersCopiesOfOneSceneAreOneTurn() {
        func photo(_ id: String, look: UInt64) -> RankingCandidate {
            var candidate = RankingSamples.candidate(id, shown: .day)
            candidate.look = LookHash(bits: look)
            return candidate
        }
        // b is a's look with 3 bits changed (another upload of it), c one 8 bits off (at the threshold), d far.
        let candidates = [photo("a", look: 0x0123_4567_89AB_CDEF), photo("b", look: 0x0123_4567_89AB_CDE8), photo("d", look: 0xFEDC_BA98_7654_3210)]
        let chosen = Set((0..<40).map { candidates[PhotoRanking(phase: .day).choose(candidates, key: "u09tv", window: Int64($0))[0]].id })
        #expect(chosen == ["a", "d"], "\(chosen.sorted())")
        #expect(PhotoRanking.isNearDuplicate(candidates[0], photo("c", look: 0x0123_4567_89AB_CD10)), "8 bits: one scene")
        #expect(!PhotoRanking.isNearDuplicate(candidates[0], photo("e", look: 0x0123_4567_89AB_CC10)), "9 bits: two")
        #expect(!PhotoRanking.isNearDuplicate(candidates[0], RankingSamples.candidate("f", shown: .day)), "no look: not known")
    }

    @Test func theLooksFetchedAreThoseThatCanTakeATurnAndNoMore() {
        // 300 candidates of one owner each: the best of each sky and class, never more than the limit.
        let candidates = (0..<300).map { RankingSamples.candidate("p\($0)", shown: [.day, .night, .dusk, nil][$0 % 4], order: $0) }
        let chosen = CandidateLooks.poolCandidates(candidates)
        #expect(chosen.count == CandidateLooks.limit && Set(chosen).count == chosen.count)
        #expect(chosen.prefix(CandidateLooks.perPool).allSatisfy { candidates[$0].shown == .day }, "the day's pool first")
        #expect(chosen.contains { candidates[$0].shown == .night }, "and the night's")
        let few = (0..<5).map { RankingSamples.candidate("p\($0)", shown: .day, order: $0) }
        #expect(CandidateLooks.poolCandidates(few).sorted() == [0, 1, 2, 3, 4], "a small cell of one sky: every candidate")
        let night = RankingSamples.candidate("night", shown: .night)
        #expect(CandidateLooks.poolCandidates(few + [night]).contains(5), "the only night photo: the night's pool")
    }

    /// Four files by four uploaders: the fixture photo, another upload of it (brighter, encoded again), the astronaut,
    /// and one of its own look. A day's windows take turns among three scenes, never showing both uploads; each
    /// thumbnail is fetched once, and a search that finds the files again fetches none.
    @Test func anotherUploadOfOnePhotoIsNotAnotherTurn() async throws {
        let clock = MovableClock(TestApp.epoch)
        try await StandInCommons.run({ commons in
            let files = [("photo", "A"), ("photo-copy", "B"), ("astronaut", "C"), (nil, "D")].enumerated().map { index, look in
                var file = File(pageid: index + 1)
                (file.look, file.user) = (look.0, look.1)
                return file
            }
            return [.json(commons.searchJSON(files))]
        }) { commons in
            let lateLooks = LateLooks()
            try await TestApp.run(CommonsBackdrop.settings(commons), clock: clock, lateLooks: lateLooks) { client in
                var shown = [String]()
                for _ in 0..<16 {
                    let (answer, json) = try await TestApp.answerAndJSON(client, "\(CommonsBackdrop.paris)&width=64&height=64")
                    #expect(answer.status == .ok && json["source"] as? String == "commons")
                    shown.append(json["photoId"] as? String ?? "")
                    if shown.count == 1 { await lateLooks.settled() }  // the looks come after the first answer
                    clock.advance(900)
                }
                #expect(Set(shown).count == 3 && !(shown.contains("commons-1") && shown.contains("commons-2")), "\(shown)")
                #expect(Set(commons.looks.map(\.path)).count == 4 && commons.looks.count == 4, "\(commons.looks.map(\.path))")
                #expect(commons.looks.allSatisfy { $0.userAgent?.hasPrefix("Backdrop-tests/1.0 (ops@example.org)") == true })
                _ = try await TestApp.answerAndJSON(client, "lat=40.4168&lon=-3.7038&width=64&height=64")
                await lateLooks.settled()
                #expect(commons.geosearches.count == 2 && commons.looks.count == 4, "looks already hashed are not fetched again")
            }
        }
    }

    /// The same through Flickr (`url_t`), which searches again every window: each thumbnail is still fetched once.
    @Test func anotherUploadOfOnePhotoIsNotAnotherTurnOnFlickr() async throws {
        let clock = MovableClock(TestApp.epoch)
        let lateLooks = LateLooks()
        try await FlickrBackdrop.withBackdrop(
            { flickr in
                let results = [("photo", "A"), ("photo-copy", "B"), ("astronaut", "C"), (nil, "D")].enumerated().map { index, look in
                    var result = flickr.result(id: "5301111111\(index + 1)", look: look.0)
                    result.owner = "\(look.1)@N00"
                    return result
                }
                return [.json(StandInFlickr.searchJSON(results))]
            },
            clock: clock,
            configure: FlickrBackdrop.patient,
            lateLooks: lateLooks
        ) { flickr, client, _ in
            #expect(FlickrSearchQuery.extras.contains("url_t"))
            var shown = [String]()
            for _ in 0..<16 {
                let answer = try await TestApp.get(client, "/background.json?\(TestApp.paris)&width=64&height=64")
                let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
                #expect(answer.status == .ok && json["source"] as? String == "flickr")
                shown.append(json["photoId"] as? String ?? "")
                if shown.count == 1 { await lateLooks.settled() }  // the looks come after the first answer
                clock.advance(900)
            }
            #expect(Set(shown).count == 3 && !(shown.contains("flickr-53011111111") && shown.contains("flickr-53011111112")), "\(shown)")
            #expect(flickr.searches.count == 16 && flickr.looks.count == 4, "\(flickr.searches.count) searches, \(flickr.looks.count) looks")
        }
    }

    /// Thumbnails that never come, or are not images: the answers wait for none of them (they come after the first
    /// answer), the looks end within their budget, and without looks every file is a scene of its own.
    @Test(arguments: ["hang", "html"])
    func thumbnailsThatFailLeaveEveryFileATurn(_ fault: String) async throws {
        let clock = MovableClock(TestApp.epoch)
        try await StandInCommons.run({ commons in
            let files = ["A", "B", "C"].enumerated().map { index, user in
                var file = File(pageid: index + 1)
                (file.look, file.user) = (fault, user)
                return file
            }
            return [.json(commons.searchJSON(files))]
        }) { commons in
            // The thumbnails' own calls would wait 60 s: only the looks' idle bound (3 s with none come) ends their wait.
            let settings = CommonsBackdrop.settings(commons) { $0.commons.totalTimeout = .seconds(60) }
            let lateLooks = LateLooks()
            try await TestApp.run(settings, clock: clock, lateLooks: lateLooks) { client in
                var shown = [String]()
                for _ in 0..<8 {
                    let (answer, json) = try await TestApp.answerAndJSON(client, "\(CommonsBackdrop.paris)&width=64&height=64")
                    #expect(answer.status == .ok && json["source"] as? String == "commons", "\(fault)")
                    shown.append(json["photoId"] as? String ?? "")
                    if shown.count == 1 { await lateLooks.settled() }
                    clock.advance(900)
                }
                #expect(Set(shown).count == 3, "\(fault): \(shown)")
                // Each asked once at most: the looks take one of the 2 media places (commons.mediaConcurrency) at most, so
                // a hanging thumbnail holds it until the looks' idle bound ends, and the others are never asked.
                #expect(commons.looks.count == (fault == "hang" ? 1 : 3), "\(fault): \(commons.looks.count) thumbnails asked")
            }
        }
    }
}
