/// What a background never shows, judged on what a photo's source says of it: Commons' category names (licence
/// templates such as PD-Art and PD-scan add categories too) and Flickr's tags. A word or phrase of the list matches
/// whole words, in any case: "Nudity in art" and "Coats of arms of Paris" match, "Mapleton" or "Signal Hill" do not.
/// Words that are also places' names stand only in phrases: "Death Valley", "Seal Beach", "Plan-de-la-Tour" and a
/// "Blood Moon" stay in, while "Deaths in 1900", "Seals of cities" and "Floor plans" are kept out.
/// Operators extend the list with `photos.keepOut`. Flickr is asked with `safe_search=1` and for photos only besides.
package struct KeptOut: Sendable, Equatable {
    /// Why a photo is kept out, for metrics and tests (`listed`: the operator's `photos.keepOut`).
    enum Reason: String, Sendable, CaseIterable {
        case nudity
        case harm
        case notAPhoto = "not_a_photo"
        case listed
    }

    /// Nudity and sexual content, nudity in art included.
    static let nudity = [
        "nude", "nudes", "nudity", "naked", "nakedness", "nudism", "nudist", "nudists", "naturism", "naturist",
        "naturists", "topless", "bottomless", "erotic", "erotica", "eroticism", "sex", "sexual", "sexuality",
        "pornography", "pornographic", "genitalia", "genitals", "penis", "vulva", "vagina", "breasts", "nipples",
        "buttocks", "striptease", "lingerie", "clothing optional", "free beach",
    ]
    /// Death, injury, medicine and violence.
    static let harm = [
        "corpse", "corpses", "dead bodies", "dead body", "cadaver", "cadavers", "deaths", "death masks", "dead people",
        "deceased", "autopsy", "injury", "injuries", "injured", "wound", "wounds", "bloodshed", "bleeding", "medical",
        "medicine", "surgery", "surgical", "surgeries", "anatomy", "anatomical", "pathology", "disease", "diseases",
        "execution", "executions", "executed", "violence", "murder", "murders", "massacre", "massacres", "torture", "gore",
        "mass graves",
    ]
    /// What is no photograph of a place: art and its reproductions, maps and documents, emblems, signs and scans.
    static let notAPhoto = [
        "painting", "paintings", "drawing", "drawings", "engraving", "engravings", "etching", "etchings", "lithograph",
        "lithographs", "illustration", "illustrations", "map", "maps", "diagram", "diagrams", "chart", "charts", "plans",
        "document", "documents", "text", "texts", "manuscript", "manuscripts", "scan", "scans", "scanned", "newspaper",
        "newspapers", "logo", "logos", "coat of arms", "coats of arms", "heraldry", "flag", "flags", "seal of", "seals of",
        "sign", "signs", "signage", "plaque", "plaques", "inscription", "inscriptions", "screenshot", "screenshots",
        "x ray", "x rays", "radiograph", "radiographs", "radiography", "microscopy", "micrograph", "micrographs",
        "postage stamps", "stamps", "postcards", "posters", "pd art", "pd scan",
    ]

    /// Each phrase as its words, by reason.
    private let phrases: [(words: [String], reason: Reason)]
    /// The list's fingerprint (16 hex digits), the same in every process: what names the photos chosen under it.
    let digest: String

    /// The shipped list, and `extra` words or phrases of the operator's (`photos.keepOut`).
    package init(extra: [String] = []) {
        var phrases = [(words: [String], reason: Reason)]()
        for (list, reason) in [(Self.nudity, Reason.nudity), (Self.harm, .harm), (Self.notAPhoto, .notAPhoto), (extra, .listed)] {
            for phrase in list {
                let words = Self.words(phrase)
                if !words.isEmpty { phrases.append((words, reason)) }
            }
        }
        self.phrases = phrases
        let hex = String(StableHash.of(phrases.map { $0.words.joined(separator: " ") }.joined(separator: "|")), radix: 16)
        self.digest = String(repeating: "0", count: 16 - hex.count) + hex
    }

    package static func == (lhs: KeptOut, rhs: KeptOut) -> Bool { lhs.phrases.map(\.words) == rhs.phrases.map(\.words) }

    /// Why a file with these category names is kept out, or nil.
    func reason(categories: [String]) -> Reason? {
        for category in categories {
            let words = Self.words(category)
            for phrase in self.phrases where Self.contains(words, phrase.words) { return phrase.reason }
        }
        return nil
    }

    /// Why a photo with these Flickr tags is kept out, or nil. Flickr writes a tag in lower case with its spaces
    /// removed: a phrase matches its words run together (`coatofarms`), a word itself.
    func reason(tags: [String]) -> Reason? {
        let tags = Set(tags.map { $0.lowercased() })
        return self.phrases.first { tags.contains($0.words.joined()) }?.reason
    }

    /// A name's words: letters and digits, lower case; anything else separates (`PD-Art (PD-old-100)`: pd, art, pd,
    /// old, 100).
    static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }

    private static func contains(_ words: [String], _ phrase: [String]) -> Bool {
        guard phrase.count <= words.count else { return false }
        return (0...(words.count - phrase.count)).contains { start in Array(words[start..<(start + phrase.count)]) == phrase }
    }
}
