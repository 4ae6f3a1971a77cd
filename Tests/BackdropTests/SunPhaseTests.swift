import Foundation
import Testing

@testable import Backdrop

/// The sun's elevation against an independent implementation (astral, Tests/sun/astral_oracle.py), and the phases.
@Suite("Sun phase")
struct SunPhaseTests {
    struct Row {
        let latitude, longitude: Double
        let time: Date
        let elevation, azimuth: Double
    }

    static func rows() throws -> [Row] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(Fixtures.bytes("sun-astral.json"))) as? [String: Any])
        let rows = try #require(object["rows"] as? [[Double]])
        return rows.map { Row(latitude: $0[0], longitude: $0[1], time: Date(timeIntervalSince1970: $0[2]), elevation: $0[3], azimuth: $0[4]) }
    }

    @Test func theElevationIsAstralsWithinATenthOfADegree() throws {
        let rows = try Self.rows()
        #expect(rows.count > 4000)
        var worst = (0.0, "")
        for row in rows {
            let ours = SolarPosition(latitude: row.latitude, longitude: row.longitude, at: row.time).elevation
            let error = abs(ours - row.elevation)
            if error > worst.0 { worst = (error, "\(row.latitude), \(row.longitude) at \(row.time): \(ours) vs \(row.elevation)") }
        }
        #expect(worst.0 <= 0.1, "worst \(worst.1)")
    }

    @Test func thePhaseIsAstralsAwayFromTheBoundaries() throws {
        var compared = [SunPhase: Int]()
        for row in try Self.rows() {
            // 0.2° from a boundary, and (for dawn and dusk) the sun clearly east or west of the meridian.
            guard [-6.0, 0, 6].allSatisfy({ abs(row.elevation - $0) > 0.2 }), abs(row.azimuth - 180) > 2, row.azimuth > 2, row.azimuth < 358
            else { continue }
            let expected: SunPhase =
                switch row.elevation {
                case ..<(-6): .night
                case ..<0: .twilight
                case ...6: row.azimuth < 180 ? .dawn : .dusk
                default: .day
                }
            let ours = SunPhase(latitude: row.latitude, longitude: row.longitude, at: row.time)
            #expect(ours == expected, "\(row.latitude), \(row.longitude) at \(row.time): elevation \(row.elevation), azimuth \(row.azimuth)")
            compared[expected, default: 0] += 1
        }
        #expect(SunPhase.allCases.allSatisfy { compared[$0, default: 0] >= 20 }, "every phase met: \(compared)")
    }

    @Test func polarDayAndPolarNight() {
        let day = ISO8601DateFormatter()
        for hour in 0..<24 {
            let midsummer = day.date(from: String(format: "2026-06-21T%02d:00:00Z", hour)) ?? Date()
            let midwinter = day.date(from: String(format: "2026-12-21T%02d:00:00Z", hour)) ?? Date()
            #expect(SunPhase(latitude: 78.2, longitude: 15.6, at: midsummer) == .day, "Longyearbyen at midsummer, \(hour) h")
            #expect(SunPhase(latitude: 78.2, longitude: 15.6, at: midwinter) == .night, "Longyearbyen at midwinter, \(hour) h")
            #expect(SunPhase(latitude: -77.8, longitude: 166.7, at: midwinter) == .day, "McMurdo in its summer, \(hour) h")
            #expect(SunPhase(latitude: -77.8, longitude: 166.7, at: midsummer) == .night, "McMurdo in its winter, \(hour) h")
        }
    }

    @Test func aCellWindowsPhaseIsAtItsCentreAndMiddle() throws {
        let paris = try #require(Geohash("u09tv"))
        let noon = try #require(ISO8601DateFormatter().date(from: "2026-11-25T11:50:00Z"))
        let midnight = try #require(ISO8601DateFormatter().date(from: "2026-11-25T23:50:00Z"))
        #expect(SunPhase(cell: paris, window: TimeWindow(containing: noon, seconds: 900)) == .day)
        #expect(SunPhase(cell: paris, window: TimeWindow(containing: midnight, seconds: 900)) == .night)
        // Paris's sunset on 2026-11-25 is about 16:58 local (15:58 UTC): golden light before it, twilight after.
        let before = try #require(ISO8601DateFormatter().date(from: "2026-11-25T15:40:00Z"))
        let after = try #require(ISO8601DateFormatter().date(from: "2026-11-25T16:15:00Z"))
        #expect(SunPhase(cell: paris, window: TimeWindow(containing: before, seconds: 900)) == .dusk)
        #expect(SunPhase(cell: paris, window: TimeWindow(containing: after, seconds: 900)) == .twilight)
        #expect(SunPhase.dusk.group == "golden" && SunPhase.dawn.group == "golden" && SunPhase.night.group == "night")
    }
}
