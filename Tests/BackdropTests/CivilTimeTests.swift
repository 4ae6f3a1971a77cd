import Foundation
import Testing

@testable import Backdrop

/// A camera's clock read as civil time at the photo's place: the zone from the compiled grid (against timezonefinder's
/// polygons, Tests/zones/timezonefinder_oracle.py), the offset from Foundation, the sun from the UTC instant.
@Suite("Civil time")
struct CivilTimeTests {
    /// The four cases of issue 50 and a few more; elevations from astral at the civil time (Tests/sun's oracle).
    @Test(arguments: [
        // Madrid, 21 June, 21:30 CEST: the sun 2.2° up in the west. Read as solar time it was 21:44 UTC: night.
        (40.42, -3.70, "2026-06-21 21:30:00", SunPhase.dusk),
        // Madrid at 06:30 CEST: the sun 3.2° below the horizon. Read as solar time: day.
        (40.42, -3.70, "2026-06-21 06:30:00", .twilight),
        // Paris at 22:10 CEST: 2.4° below. Read as solar time: night.
        (48.86, 2.35, "2026-06-21 22:10:00", .twilight),
        // Sydney in summer (AEDT, UTC+11), 20:30: 4.7° below. Read as solar time (UTC+10:05): night, so unknown.
        (-33.87, 151.21, "2026-01-15 20:30:00", .twilight),
        (-33.87, 151.21, "2026-01-15 20:45:00", .night),
        // Kolkata (IST, UTC+5:30, 23 minutes behind the sun): 17:00 golden (1.9°), 17:20 twilight (−2.3°); solar: unknown.
        (22.57, 88.36, "2026-01-15 17:00:00", .dusk),
        (22.57, 88.36, "2026-01-15 17:20:00", .twilight),
        // Reykjavík keeps UTC all year, 1.5 h behind its clock's sun: 10:30 in December is before sunrise (solar: golden).
        (64.15, -21.94, "2026-12-21 10:30:00", .twilight),
    ])
    func theCameraClockIsCivilTimeAtThePlace(latitude: Double, longitude: Double, taken: String, expected: SunPhase) {
        #expect(ShownPhase.phase(taken: taken, latitude: latitude, longitude: longitude) == expected)
    }

    @Test func aClockNearABorderBetweenOffsetsIsReadBothWays() throws {
        // Badajoz (Spain, CEST) is 6 km from Portugal (WEST, an hour behind): a photo there at 21:50 in June is golden
        // by Spain's clock and, by Portugal's, an hour later, after dark. The clocks disagree within a cell: unknown.
        let border = CivilClock.instants(wall: try #require(ShownPhase.seconds("2026-06-21 21:50:00")), latitude: 38.88, longitude: -7.03)
        #expect(Set(border.map(\.timeIntervalSince1970)).count == 2)
        #expect(ShownPhase.phase(taken: "2026-06-21 21:50:00", latitude: 38.88, longitude: -7.03) == nil)
        // Madrid, far from any border, has one reading.
        #expect(CivilClock.instants(wall: 0, latitude: 40.42, longitude: -3.70).count == 1)
    }

    /// Issue 59, part 5: Ürümqi's zone is UTC+6, but many there (and most cameras sold in China) keep Beijing time,
    /// UTC+8. A photo at 21:00 in June is golden by Beijing's clock and after sunset by Ürümqi's: unknown. Noon is day
    /// by either; Lhasa (Beijing time alone) keeps one reading.
    @Test func xinjiangIsReadByBothClocksItsPeopleKeep() throws {
        let (latitude, longitude) = (43.83, 87.62)
        let evening = CivilClock.instants(wall: try #require(ShownPhase.seconds("2026-06-21 21:00:00")), latitude: latitude, longitude: longitude)
        #expect(Set(evening.map(\.timeIntervalSince1970)).count == 2)
        #expect(ShownPhase.phase(taken: "2026-06-21 21:00:00", latitude: latitude, longitude: longitude) == nil)
        #expect(ShownPhase.phase(taken: "2026-06-21 13:00:00", latitude: latitude, longitude: longitude) == .day)
        #expect(CivilClock.instants(wall: 0, latitude: 29.65, longitude: 91.13).count == 1)
    }

    @Test func theHourAClockTurnsBackHasTwoReadingsAndTheSkippedHourTwo() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        // 25 October 2026: 03:00 CEST became 02:00 CET, so 02:30 happened twice.
        let back = try #require(ShownPhase.seconds("2026-10-25 02:30:00"))
        #expect(Set(CivilClock.offsets(wall: back, in: .named(paris))) == [3600, 7200])
        // 29 March 2026: 02:00 CET became 03:00 CEST; 02:30 never happened: both offsets either side.
        let skipped = try #require(ShownPhase.seconds("2026-03-29 02:30:00"))
        #expect(Set(CivilClock.offsets(wall: skipped, in: .named(paris))) == [3600, 7200])
        let noon = try #require(ShownPhase.seconds("2026-10-25 12:00:00"))
        #expect(CivilClock.offsets(wall: noon, in: .named(paris)) == [3600])
    }

    @Test func theOpenSeaKeepsNauticalTime() {
        // Mid-Atlantic: timezonefinder's Etc/GMT+2 (UTC−2); the Pacific each side of the date line: +12 and −12.
        #expect(ZoneGrid.shared.zone(latitude: 40, longitude: -30) == .sea(hours: -2))
        #expect(ZoneGrid.sea(179.9) == .sea(hours: 12) && ZoneGrid.sea(-179.9) == .sea(hours: -12) && ZoneGrid.sea(7.4) == .sea(hours: 0))
    }

    struct Row {
        let latitude, longitude: Double
        let name: String
        let january, july: Int
    }

    static func rows() throws -> (dates: [Date], rows: [Row]) {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(Fixtures.bytes("zones-timezonefinder.json"))) as? [String: Any]
        )
        let dates = try #require(object["dates"] as? [Double]).map { Date(timeIntervalSince1970: $0) }
        let rows = try #require(object["rows"] as? [[Any]]).compactMap { row -> Row? in
            guard row.count == 5, let latitude = row[0] as? Double, let longitude = row[1] as? Double, let name = row[2] as? String,
                let january = row[3] as? Int, let july = row[4] as? Int
            else { return nil }
            return Row(latitude: latitude, longitude: longitude, name: name, january: january, july: july)
        }
        return (dates, rows)
    }

    static func offset(_ zone: ZoneGrid.Zone, at date: Date) -> Int {
        switch zone {
        case .named(let timeZone): timeZone.secondsFromGMT(for: date)
        case .sea(let hours): hours * 3600
        }
    }

    /// The grid against timezonefinder's polygons at 8,000 places (6,000 anywhere, 2,000 within 30 km of 40 cities):
    /// measured 99.35 % the same zone and 99.6 % the same clock in January and July; every place whose clock differs
    /// lies within a cell of a border, where the phase must hold under both clocks.
    @Test func theGridAgreesWithTimezonefinder() throws {
        let (dates, rows) = try Self.rows()
        #expect(rows.count == 8000)
        var sameZone = 0
        var sameClock = 0
        var missed = [String]()
        for row in rows {
            let zone = ZoneGrid.shared.zone(latitude: row.latitude, longitude: row.longitude)
            let name: String =
                switch zone {
                case .named(let timeZone): timeZone.identifier
                case .sea(let hours): hours == 0 ? "Etc/GMT" : "Etc/GMT\(hours > 0 ? "-" : "+")\(abs(hours))"
                }
            if name == row.name { sameZone += 1 }
            let expected = [row.january, row.july]
            if dates.map({ Self.offset(zone, at: $0) }) == expected {
                sameClock += 1
            } else {
                let near = ZoneGrid.shared.zonesNear(latitude: row.latitude, longitude: row.longitude)
                if !near.contains(where: { candidate in dates.map { Self.offset(candidate, at: $0) } == expected }) {
                    missed.append("\(row.latitude), \(row.longitude): \(row.name), ours \(name)")
                }
            }
        }
        let zoneShare = Double(sameZone) / Double(rows.count)
        let clockShare = Double(sameClock) / Double(rows.count)
        #expect(zoneShare >= 0.99, "same zone at \(zoneShare * 100) %")
        #expect(clockShare >= 0.995, "same clock at \(clockShare * 100) %")
        #expect(missed.isEmpty, "clocks neither the cell nor its neighbours keep: \(missed.prefix(5))")
    }

    @Test func everyZoneInTheGridIsOneFoundationKnows() {
        let names = ZoneGridData.text.split(separator: "\n", maxSplits: 2)[1].split(separator: " ")
        #expect(names.count > 400)
        let unknown = names.filter { TimeZone(identifier: String($0).trimmingCharacters(in: .whitespaces)) == nil }
        #expect(unknown.isEmpty, "\(unknown)")
    }
}
