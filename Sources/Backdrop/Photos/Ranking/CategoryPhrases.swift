/// What a Commons category says of the sky or the air, read from how categories are named, not from any word in them:
/// "Sunsets in Paris" is dusk, "Sunset Boulevard" is a street. A category names a phase when it is
/// - the phase's own category: `Sunsets`, `Night`, `Blue hour`, `Fog`;
/// - that name before a place or a subject: `Sunsets in …`, `Sunset over …`, `Night in …`, `Night views of …`,
///   `Fog in …`, `Blue hour in …` (joined by `in`, `at`, `on`, `over`, `from`, `near`, `above`, `along`, `during`,
///   `across`, `around`, and by `of` after a noun of two words);
/// - a subject at that phase: `… at night`, `… by night`, `… at dusk`, `… at sunrise`, `… in fog`,
///   `… during blue hour`, `… in the mist`.
/// Any other use of the words (proper names such as `Alba Iulia` or `Stars on the Hollywood Walk of Fame`) says nothing.
enum CategoryPhrases {
    /// The phase the categories name, when they agree; nil when none names one or two disagree.
    static func phase(_ categories: [String]) -> SunPhase? {
        var found = [SunPhase]()
        for category in categories {
            if let phase = Self.match(category, Self.phases), !found.contains(where: { $0.group == phase.group }) { found.append(phase) }
        }
        return found.count == 1 ? found[0] : nil
    }

    /// Whether a category names mist or fog: smooth by nature, not blurred.
    static func misty(_ categories: [String]) -> Bool {
        categories.contains { Self.match($0, Self.mist) != nil }
    }

    /// Phase nouns as categories start with them (singular and plural) and as a subject is said to be at them.
    private static let phases: [(subject: String, suffixes: [String], phase: SunPhase)] = [
        ("night", ["at night", "by night", "in the night"], .night),
        ("nights", [], .night),
        ("night views", [], .night),
        ("night photographs", [], .night),
        ("night photography", [], .night),
        ("nighttime", ["at nighttime", "at night time"], .night),
        ("starry sky", ["under the stars", "under a starry sky"], .night),
        ("star trails", [], .night),
        ("milky way", [], .night),
        ("blue hour", ["at blue hour", "during blue hour", "in the blue hour", "during the blue hour", "at the blue hour"], .twilight),
        ("twilight", ["at twilight", "in twilight", "in the twilight"], .twilight),
        ("sunset", ["at sunset", "at dusk", "in the evening light"], .dusk),
        ("sunsets", [], .dusk),
        ("dusk", [], .dusk),
        ("sunrise", ["at sunrise", "at dawn", "at daybreak", "in the morning light"], .dawn),
        ("sunrises", [], .dawn),
        ("dawn", [], .dawn),
        ("golden hour", ["at golden hour", "during golden hour", "during the golden hour", "in the golden hour"], .dusk),
    ]

    private static let mist: [(subject: String, suffixes: [String], phase: SunPhase)] = [
        ("fog", ["in fog", "in the fog", "in thick fog"], .day),
        ("mist", ["in mist", "in the mist"], .day),
        ("haze", ["in haze", "in the haze"], .day),
        ("foggy weather", [], .day),
    ]

    /// The words that join a phase noun to a place or a subject.
    /// `of` only after a noun of more than one word (`Night views of …`, not `Dawn of the Dead`).
    private static let joins = ["in", "at", "on", "over", "from", "near", "above", "along", "during", "across", "around"]

    private static func match(_ category: String, _ table: [(subject: String, suffixes: [String], phase: SunPhase)]) -> SunPhase? {
        let words = category.lowercased().split(whereSeparator: { $0 == " " || $0 == "_" })
        let text = words.joined(separator: " ")
        for entry in table {
            if text == entry.subject { return entry.phase }
            if text.hasPrefix(entry.subject + " ") {
                let next = text.dropFirst(entry.subject.count + 1).prefix { $0 != " " }
                if Self.joins.contains(String(next)) || (next == "of" && entry.subject.contains(" ")) { return entry.phase }
            }
            if entry.suffixes.contains(where: { text.hasSuffix(" " + $0) }) { return entry.phase }
        }
        return nil
    }
}
