import Foundation

/// What the sky is doing at a place and moment, from the sun's elevation: `night` below −6°, `twilight` from −6° to 0°,
/// `golden` from 0° to 6° (at dawn or at dusk, by the sun's hour angle), `day` above 6°. A pure function of place and
/// time, so every replica agrees and cell URLs do not change.
package enum SunPhase: String, Sendable, Codable, CaseIterable {
    case night, twilight, dawn, dusk, day

    /// The phase at (`latitude`, `longitude`) at `date`.
    package init(latitude: Double, longitude: Double, at date: Date) {
        self.init(SolarPosition(latitude: latitude, longitude: longitude, at: date))
    }

    init(_ position: SolarPosition) {
        switch position.elevation {
        case ..<(-6): self = .night
        case ..<0: self = .twilight
        case ...6: self = position.hourAngle < 0 ? .dawn : .dusk
        default: self = .day
        }
    }

    /// The phase at the centre of `cell` in the middle of `window`: what a cell-window's photo should show.
    package init(cell: Geohash, window: TimeWindow) {
        let centre = cell.centre
        let middle = window.start.addingTimeInterval(Double(window.seconds) / 2)
        self.init(latitude: centre.latitude, longitude: centre.longitude, at: middle)
    }

    /// A phase by the name clients read (`golden` stands for dawn and dusk alike: read as dusk), nil for any other.
    package init?(group: String) {
        switch group {
        case "golden": self = .dusk
        case "dawn", "dusk": return nil
        default: self.init(rawValue: group)
        }
    }

    /// The name clients read: `golden` for dawn and dusk alike.
    package var group: String {
        switch self {
        case .dawn, .dusk: "golden"
        default: self.rawValue
        }
    }
}

/// The sun's geometric elevation (no refraction) and hour angle, by NOAA's low-accuracy formulas (after Meeus): within
/// about 0.02° of the reference for 1950 to 2050 (checked against `astral` in the tests).
struct SolarPosition {
    /// Degrees above the horizon (negative below it).
    let elevation: Double
    /// Degrees west of the meridian: negative in the morning, positive in the afternoon.
    let hourAngle: Double

    init(latitude: Double, longitude: Double, at date: Date) {
        let julianCentury = (date.timeIntervalSince1970 / 86400 + 2_440_587.5 - 2_451_545) / 36525
        let t = julianCentury
        let meanLongitude = (280.46646 + t * (36000.76983 + t * 0.0003032)).truncatingRemainder(dividingBy: 360)
        let meanAnomaly = 357.52911 + t * (35999.05029 - 0.0001537 * t)
        let eccentricity = 0.016708634 - t * (0.000042037 + 0.0000001267 * t)
        let centre =
            sin(radians(meanAnomaly)) * (1.914602 - t * (0.004817 + 0.000014 * t)) + sin(radians(2 * meanAnomaly)) * (0.019993 - 0.000101 * t)
            + sin(radians(3 * meanAnomaly)) * 0.000289
        let omega = 125.04 - 1934.136 * t
        let apparentLongitude = meanLongitude + centre - 0.00569 - 0.00478 * sin(radians(omega))
        let meanObliquity = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60
        let obliquity = meanObliquity + 0.00256 * cos(radians(omega))
        let declination = degrees(asin(sin(radians(obliquity)) * sin(radians(apparentLongitude))))
        let y = pow(tan(radians(obliquity / 2)), 2)
        let l0 = radians(meanLongitude)
        let m = radians(meanAnomaly)
        let equationOfTime =
            4
            * degrees(
                y * sin(2 * l0) - 2 * eccentricity * sin(m) + 4 * eccentricity * y * sin(m) * cos(2 * l0) - 0.5 * y * y * sin(4 * l0)
                    - 1.25 * eccentricity * eccentricity * sin(2 * m)
            )
        let minutesOfDay = date.timeIntervalSince1970.truncatingRemainder(dividingBy: 86400) / 60
        var trueSolarMinutes = (minutesOfDay + equationOfTime + 4 * longitude).truncatingRemainder(dividingBy: 1440)
        if trueSolarMinutes < 0 { trueSolarMinutes += 1440 }
        self.hourAngle = trueSolarMinutes / 4 - 180
        let cosZenith =
            sin(radians(latitude)) * sin(radians(declination)) + cos(radians(latitude)) * cos(radians(declination)) * cos(radians(self.hourAngle))
        self.elevation = 90 - degrees(acos(min(1, max(-1, cosZenith))))
    }
}

private func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
private func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
