import Foundation
import Testing

@testable import Backdrop

/// Issue 59, part 2: what a photo shows, from its categories as Commons names them.
@Suite("What a photo shows")
struct PhotoSubjectTests {
    @Test(arguments: [
        ("Views of Paris", PhotoSubject.view), ("Night views of Paris", .view), ("Skyline of Manhattan", .view),
        ("Streets in Montmartre", .view), ("Bridges over the Seine", .view), ("Churches in Paris", .view),
        ("Eiffel Tower seen from the Trocadéro", .view), ("Beaches of Normandy", .view), ("Sunsets at Lake Geneva", .view),
        ("Exterior of the Panthéon (Paris)", .view), ("Aerial photographs of Paris", .unknown),
        ("Buses in Paris", .notView), ("Sculptures in the Louvre", .notView), ("Interior of the Panthéon (Paris)", .notView),
        ("Doors in Paris", .notView), ("Shopfronts in Paris", .notView), ("Food of France", .notView),
        ("Portraits of women", .notView), ("People of Paris", .notView), ("Antiquities in the Louvre", .notView),
        ("Coats of arms of Paris", .notView), ("Signs in Paris", .notView), ("Athletics at the 2024 Bislett Games", .notView),
        ("Dogs in Paris", .notView), ("Paintings by Claude Monet", .notView), ("Galleries of the Louvre", .unknown),
        // Names and maintenance categories say nothing.
        ("Eiffel Tower", .unknown), ("Statue of Liberty", .unknown), ("Bust of Nefertiti", .unknown), ("Self-published work", .unknown),
        ("Files with coordinates missing SDC location of creation", .unknown), ("2024 Bislett Games", .unknown),
        ("Jakob Ingebrigtsen in 2024", .unknown), ("Buses Hill", .unknown),
    ])
    func aCategorysSubjectNounSaysWhatIsShown(category: String, expected: PhotoSubject) {
        #expect(PhotoSubject.of(categories: [category]) == expected, "\(category)")
    }

    @Test func anyViewMakesAViewAndNamesSayNothing() {
        #expect(PhotoSubject.of(categories: ["buses in paris", "streets in paris"]) == .view, "a street scene with a bus")
        #expect(PhotoSubject.of(categories: ["eiffel tower", "sculptures in paris"]) == .notView)
        #expect(PhotoSubject.of(categories: []) == .unknown)
    }

    /// A view ranks before every photo of the same sky whatever their assessments; one whose subject nothing says
    /// between; not a view after both.
    @Test func aViewRanksFirstThenTheUnknownThenWhatIsNotAView() {
        func candidate(_ id: String, _ subject: PhotoSubject?, assessment: Int?) -> RankingCandidate {
            RankingCandidate(
                id: id,
                owner: id,
                shown: nil,
                setting: .unsaid,
                accuracy: 16,
                order: 0,
                width: 6000,
                height: 4000,
                assessment: assessment,
                subject: subject
            )
        }
        let candidates = [
            candidate("bus-featured", .notView, assessment: 3), candidate("street", .view, assessment: nil),
            candidate("name", nil, assessment: 2),
        ]
        let ranking = PhotoRanking(phase: .day, shape: .landscape)
        let (first, _, _) = ranking.ranked(candidates)
        #expect(first.map { candidates[$0].id } == ["street", "name", "bus-featured"])
    }
}
