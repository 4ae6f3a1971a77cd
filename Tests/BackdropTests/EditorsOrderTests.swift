import Testing

@testable import Backdrop

/// The ranking's order as a photo editor sets it (issue 59, part 4): the judgement above the crop, the sky in bands,
/// the crop judged by the interest it keeps (on the look thumbnail), distance last; and a pool topped up from the next
/// tier with the best shown twice as often.
@Suite("An editor's order")
struct EditorsOrderTests {
    static func photo(
        _ id: String,
        shown: SunPhase? = .day,
        size: (Int, Int) = (4000, 6000),
        assessment: Int? = nil,
        interestingness: Int? = nil,
        distance: Double? = 500,
        interest: CropInterest? = nil
    ) -> RankingCandidate {
        var facts = RankingCandidate(
            id: id,
            owner: "owner-\(id)",
            shown: shown,
            setting: .unsaid,
            accuracy: 16,
            order: 0,
            width: size.0,
            height: size.1,
            assessment: assessment
        )
        (facts.interestingness, facts.distance, facts.interest) = (interestingness, distance, interest)
        return facts
    }

    static func order(_ candidates: [RankingCandidate], _ phase: SunPhase, _ shape: ScreenShape) -> [String] {
        PhotoRanking(phase: phase, shape: shape).ranked(candidates).first.map { candidates[$0].id }
    }

    /// On a phone a featured 3:2 view beats a portrait snapshot (the judgement ranks above the crop); at golden hour a
    /// featured daytime view beats an unassessed sunset (the same band), but not a featured night view at noon.
    @Test func theJudgementRanksAboveTheCropAndTheExactSky() {
        let snapshot = Self.photo("portrait-snapshot")
        let featured = Self.photo("featured-landscape", size: (6000, 4000), assessment: 3)
        #expect(Self.order([snapshot, featured], .day, .portrait) == ["featured-landscape", "portrait-snapshot"])
        let sunset = Self.photo("sunset", shown: .dusk, size: (6000, 4000))
        let view = Self.photo("featured-day", shown: .day, size: (6000, 4000), assessment: 3)
        let night = Self.photo("featured-night", shown: .night, size: (6000, 4000), assessment: 3)
        #expect(Self.order([sunset, view, night], .dusk, .landscape) == ["featured-day", "sunset", "featured-night"])
        #expect(Self.order([sunset, view, night], .day, .landscape) == ["featured-day", "sunset", "featured-night"])
        #expect(Self.order([sunset, night], .night, .landscape) == ["featured-night", "sunset"])
        // Among equals, the exact sky still decides: at dusk the golden photo before the daytime one.
        #expect(
            Self.order([view, Self.photo("featured-dusk", shown: .dusk, size: (6000, 4000), assessment: 3)], .dusk, .landscape).first
                == "featured-dusk"
        )
    }

    /// Flickr's interestingness by fifties is its judgement, above the crop; the nearer of two equals comes first, and
    /// an unplaced photo after every placed one.
    @Test func interestingnessIsFlickrsJudgementAndDistanceComesLast() {
        let interesting = Self.photo("interesting-landscape", size: (6000, 4000), interestingness: 3)
        let later = Self.photo("later-portrait", interestingness: 70)
        #expect(Self.order([later, interesting], .day, .portrait) == ["interesting-landscape", "later-portrait"])
        let near = Self.photo("near", distance: 120)
        let far = Self.photo("far", distance: 2400)
        let nowhere = Self.photo("nowhere", distance: nil)
        #expect(Self.order([nowhere, far, near], .day, .portrait) == ["near", "far", "nowhere"])
        #expect(PhotoRanking(phase: .day, shape: .portrait).score(near).count == 13)
    }

    /// A landscape whose interest lies in one part (a tower at one side of a wide sky) keeps most of it on a phone and
    /// ranks with the portraits; one whose interest spreads edge to edge keeps about its area, and comes after them.
    @Test func theCropIsJudgedByTheInterestItKeeps() {
        let tower = CropInterest(Self.landscape(stripes: 0..<36))
        let skyline = CropInterest(Self.landscape(stripes: 0..<120))
        #expect(tower.portrait >= 0.8 && tower.landscape > 0.8, "\(tower)")
        #expect(skyline.portrait < 0.45 && skyline.portrait > 0.3, "about its area (0.375): \(skyline)")
        let portrait = Self.photo("portrait", distance: 900)
        let towerPhoto = Self.photo("tower", size: (6000, 4000), distance: 100, interest: tower)
        let skylinePhoto = Self.photo("skyline", size: (6000, 4000), distance: 100, interest: skyline)
        #expect(Self.order([portrait, skylinePhoto, towerPhoto], .day, .portrait) == ["tower", "portrait", "skyline"])
        let unread = Self.photo("unread", size: (6000, 4000), distance: 100)
        #expect(Self.order([portrait, unread], .day, .portrait) == ["portrait", "unread"], "unread: its area kept, 37.5 %")
    }

    /// A 120 x 80 thumbnail of flat blue sky with a black and white checkerboard of 8-px squares (edges at the scale of
    /// the interest's grid) in the columns `stripes`.
    static func landscape(stripes: Range<Int>) -> RGBImage {
        RGBImage(width: 120, height: 80) { pixels in
            for y in 0..<80 {
                for x in 0..<120 {
                    let (r, g, b): (UInt8, UInt8, UInt8) =
                        !stripes.contains(x) ? (70, 120, 220) : (x / 8 + y / 8).isMultiple(of: 2) ? (20, 20, 20) : (240, 240, 240)
                    (pixels[3 * (y * 120 + x)], pixels[3 * (y * 120 + x) + 1], pixels[3 * (y * 120 + x) + 2]) = (r, g, b)
                }
            }
        }
    }

    /// A pool of one featured photo and three others: the featured one shows in two windows of five, each other in one,
    /// no window repeats the one before, for any place; with the best tier four or more, every photo once a pass.
    @Test func theBestTierShowsTwiceAsOftenAsItsTopUp() {
        for key in ["u09tv", "gcpvj", "r3gx2", "9q8yy"] {
            for favoured in 1...3 {
                let count = favoured + 3 - (favoured == 3 ? 2 : 0)
                var shown = [Int](repeating: 0, count: count)
                var previous = -1
                let length = 2 * favoured + (count - favoured)
                for window in Int64(0)..<Int64(20 * length) {
                    let index = PhotoChoice.index(key: key, window: window, count: count, favoured: favoured)
                    #expect(index != previous, "\(key) window \(window)")
                    (previous, shown[index]) = (index, shown[index] + 1)
                }
                #expect(shown.prefix(favoured).allSatisfy { $0 == 40 } && shown.dropFirst(favoured).allSatisfy { $0 == 20 }, "\(key) \(shown)")
            }
        }
        #expect(
            (0..<8).map { PhotoChoice.index(key: "u09tv", window: $0, count: 4, favoured: 4) }
                == (0..<8).map { PhotoChoice.index(key: "u09tv", window: $0, count: 4) }
        )
    }
}
