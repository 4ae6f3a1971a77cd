import Foundation
import Testing

@testable import Backdrop

@Suite("Geohash and time windows")
struct GeoTests {
    @Test func publicReferenceVectors() {
        #expect(Geohash(latitude: 42.6, longitude: -5.6, precision: 5).value == "ezs42")
        #expect(Geohash(latitude: 57.64911, longitude: 10.40744, precision: 11).value == "u4pruydqqvj")
        #expect(Geohash(latitude: 48.8566, longitude: 2.3522, precision: 5).value == "u09tv")
        #expect(Geohash(latitude: -33.8688, longitude: 151.2093, precision: 6).value == "r3gx2f")
    }

    @Test func polesCornersAndTheAntimeridian() {
        #expect(Geohash(latitude: 90, longitude: 180, precision: 5).value == "zzzzz")
        #expect(Geohash(latitude: -90, longitude: -180, precision: 5).value == "00000")
        #expect(Geohash(latitude: 0, longitude: 0, precision: 5).value == "s0000")
        // Either side of the antimeridian lies at opposite ends of the grid.
        #expect(Geohash(latitude: 0, longitude: 180, precision: 5).value == "xbpbp")
        #expect(Geohash(latitude: 0, longitude: -180, precision: 5).value == "80000")
        #expect(Geohash(latitude: 10, longitude: 179.99, precision: 3) != Geohash(latitude: 10, longitude: -179.99, precision: 3))
    }

    @Test func cellBoundariesBelongToTheUpperCell() throws {
        let cell = Geohash(latitude: 42.6, longitude: -5.6, precision: 5)
        let bounds = cell.bounds
        #expect(bounds.latitude.contains(42.6) && bounds.longitude.contains(-5.6))
        // The cell's own south-west corner is inside it; a hair below is in the neighbour.
        #expect(Geohash(latitude: bounds.latitude.lowerBound, longitude: bounds.longitude.lowerBound, precision: 5) == cell)
        #expect(Geohash(latitude: bounds.latitude.lowerBound - 1e-9, longitude: -5.6, precision: 5) != cell)
        #expect(Geohash(latitude: bounds.latitude.upperBound, longitude: -5.6, precision: 5) != cell)
    }

    @Test func centresEncodeBackToTheirCell() {
        var generator = SeededGenerator(seed: 44)  // fixed, so that a failure replays
        for _ in 0..<500 {
            let lat = Double.random(in: -90...90, using: &generator)
            let lon = Double.random(in: -180...180, using: &generator)
            for precision in [1, 5, 9] {
                let cell = Geohash(latitude: lat, longitude: lon, precision: precision)
                #expect(cell.value.count == precision)
                #expect(Geohash(latitude: cell.centre.latitude, longitude: cell.centre.longitude, precision: precision) == cell)
                #expect(cell.bounds.latitude.contains(lat) && cell.bounds.longitude.contains(lon))
            }
        }
        #expect(Geohash("ezs42") != nil)
        #expect(Geohash("ezs4a") == nil)  // 'a' is not in the alphabet
        #expect(Geohash("") == nil)
    }

    @Test func windowsAndSecondsLeft() {
        let date = Date(timeIntervalSince1970: 900 * 1000 + 100)
        let window = TimeWindow(containing: date, seconds: 900)
        #expect(window.index == 1000)
        #expect(window.secondsLeft(at: date) == 800)
        #expect(window.secondsLeft(at: window.start) == 900)
        #expect(TimeWindow(containing: window.end, seconds: 900).index == 1001)
        #expect(window.secondsLeft(at: Date(timeIntervalSince1970: 900 * 1001 - 0.5)) == 1)
    }

    @Test func photoChoiceIsStableAndVaries() {
        let place = Place.cell(Geohash(latitude: 42.6, longitude: -5.6, precision: 5))
        let window = TimeWindow(index: 5000, seconds: 900)
        #expect(PhotoChoice.index(place: place, window: window, count: 9) == PhotoChoice.index(place: place, window: window, count: 9))
        // Consecutive windows of one place never repeat the photo.
        for index in 5000..<5020 {
            #expect(
                PhotoChoice.index(place: place, window: TimeWindow(index: Int64(index), seconds: 900), count: 9)
                    != PhotoChoice.index(place: place, window: TimeWindow(index: Int64(index + 1), seconds: 900), count: 9)
            )
        }
        // Across many cells in one window, every photo is used.
        let cells = (0..<200).map { Place.cell(Geohash(latitude: Double($0) * 0.7 - 70, longitude: Double($0) * 1.7 - 170, precision: 5)) }
        #expect(Set(cells.map { PhotoChoice.index(place: $0, window: window, count: 9) }).count == 9)
        // FNV-1a reference values: the same in every process, unlike Swift's seeded Hasher.
        #expect(StableHash.of("") == 0xcbf2_9ce4_8422_2325)
        #expect(StableHash.of("a") == 0xaf63_dc4c_8601_ec8c)
    }
}
