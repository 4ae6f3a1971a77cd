import Foundation

/// A camera's wall clock read as civil time at the place: the UTC instants a zone-less reading may stand for.
///
/// One instant, except where the clock is truly ambiguous: within a grid cell (about 11 km) of a border between
/// zones whose clocks differ at that moment, each zone's reading counts; in the hour a clock turns back, both; in the
/// hour it skips, the readings either side of the change. Where people commonly keep another clock than their zone's
/// (``keptBesides``: Xinjiang's Ürümqi time beside Beijing time, which many there and most cameras sold in China keep),
/// both clocks' readings count.
enum CivilClock {
    /// The other clock many people keep in a zone: Xinjiang (Asia/Urumqi, UTC+6) runs on Beijing time as well.
    static let keptBesides = ["Asia/Urumqi": "Asia/Shanghai", "Asia/Kashgar": "Asia/Shanghai"]

    /// The instants a clock reading `wall` (seconds since 1970 on a clock without zone) may be at (`latitude`,
    /// `longitude`), without repeats, the place's own zone's first.
    static func instants(wall: Double, latitude: Double, longitude: Double, grid: ZoneGrid = .shared) -> [Date] {
        var offsets = [Int]()
        for zone in grid.zonesNear(latitude: latitude, longitude: longitude) {
            var zones = [zone]
            if case .named(let timeZone) = zone, let other = Self.keptBesides[timeZone.identifier].flatMap(TimeZone.init(identifier:)) {
                zones.append(.named(other))
            }
            for zone in zones {
                for offset in Self.offsets(wall: wall, in: zone) where !offsets.contains(offset) { offsets.append(offset) }
            }
        }
        return offsets.map { Date(timeIntervalSince1970: wall - Double($0)) }
    }

    /// The offsets from UTC, in seconds, a reading `wall` may have in `zone`: those a UTC instant twelve hours either
    /// side has that give back the reading; both when none does (the skipped hour).
    static func offsets(wall: Double, in zone: ZoneGrid.Zone) -> [Int] {
        switch zone {
        case .sea(let hours):
            return [hours * 3600]
        case .named(let timeZone):
            let near = [-43200.0, 43200].map { timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall + $0)) }
            let candidates = near[0] == near[1] ? [near[0]] : near
            let held = candidates.filter { timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - Double($0))) == $0 }
            return held.isEmpty ? candidates : held
        }
    }
}
