import Foundation

/// What a candidate photo shows of the sky, when its facts say: from an exact time taken, else from its tags; nil when
/// nothing does. The same for Flickr's and any other source's candidates.
enum ShownPhase {
    /// The phase at (`latitude`, `longitude`) when a camera clock read `taken` (`YYYY-MM-DD hh:mm:ss`, no zone), the
    /// clock read as civil time there (``CivilClock``: the place's IANA zone, summer time included). Where the reading
    /// is truly ambiguous (near a border between clocks that differ, in the hour a clock turns back) the phase must be
    /// the same at every instant it may be, or it is unknown.
    static func phase(taken: String, latitude: Double, longitude: Double) -> SunPhase? {
        guard let wall = Self.seconds(taken) else { return nil }
        let phases = CivilClock.instants(wall: wall, latitude: latitude, longitude: longitude).map {
            SunPhase(latitude: latitude, longitude: longitude, at: $0)
        }
        guard let first = phases.first, phases.allSatisfy({ $0.group == first.group }) else { return nil }
        return first
    }

    /// `text` when it is a time a camera's clock read (`YYYY-MM-DD hh:mm:ss`), nil when it is not, or when it is a date
    /// alone: Flickr and Commons write a date without a time as that day's `00:00:00`, which is not a photo at midnight.
    static func clockTime(_ text: String) -> String? {
        guard Self.seconds(text) != nil, !text.hasSuffix(" 00:00:00") else { return nil }
        return text
    }

    /// `YYYY-MM-DD hh:mm:ss` as seconds since 1970 on a clock without zone; nil when it is not that.
    static func seconds(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count == 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1800...2200).contains(year), (1...12).contains(month),
            (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Days from 1970-01-01 to the civil date (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146097 + dayOfEra - 719468
        return Double(days * 86400 + hour * 3600 + minute * 60 + second)
    }

    /// The phase a photo's tags name (Flickr writes tags in lower case without spaces: `goldenhour`, `bluehour`). Words
    /// that are as often names are left out (`stars` of the Hollywood Walk of Fame, `alba` of Alba Iulia).
    static func phase(tags: [String]) -> SunPhase? {
        var found = [SunPhase]()
        for tag in tags {
            if let phase = Self.tagged[tag], !found.contains(where: { $0.group == phase.group }) { found.append(phase) }
        }
        // Tags that disagree (a sunset and the stars after it) say nothing sure.
        return found.count == 1 ? found[0] : nil
    }

    /// Whether tags (or a category's words) say mist or fog: smooth by nature, not blurred.
    static func misty(_ tags: [String]) -> Bool {
        tags.contains { Self.mist.contains($0) }
    }

    private static let mist: Set<String> = [
        "fog", "foggy", "mist", "misty", "haze", "hazy", "brume", "brouillard", "nebel", "neblig", "niebla", "nebbia", "nevoeiro",
    ]

    private static let tagged: [String: SunPhase] = {
        var table = [String: SunPhase]()
        for tag in [
            "night", "nightscape", "nightshot", "nightphotography", "nightsky", "nighttime", "atnight", "bynight", "starry",
            "starrynight", "startrails", "milkyway", "astrophotography", "astro", "longexposurenight", "cityatnight", "nightlights",
        ] {
            table[tag] = .night
        }
        for tag in ["bluehour", "twilight", "civiltwilight", "heurebleue", "afterglow"] { table[tag] = .twilight }
        for tag in ["sunset", "sunsets", "dusk", "eveninglight", "coucherdesoleil", "puestadesol", "sonnenuntergang", "tramonto"] {
            table[tag] = .dusk
        }
        for tag in ["sunrise", "sunrises", "dawn", "daybreak", "morninglight", "leverdesoleil", "amanecer", "sonnenaufgang"] {
            table[tag] = .dawn
        }
        for tag in ["goldenhour", "goldenlight", "magichour"] { table[tag] = .dusk }  // dawn or dusk alike: golden
        return table
    }()
}
