/// What a background never shows, judged on what a photo's source says of it: Commons' category names (licence
/// templates such as PD-Art and PD-scan add categories too) and Flickr's tags. A word or phrase of the list matches
/// whole words however they are written (``MatchWords``: `Nudé`, full-width letters, a soft hyphen inside, a Cyrillic
/// `е`), in its plural and `-ness` forms too (`nude`: `nudes`; `topless`: `toplessness`; `injury`: `injuries`):
/// "Nudity in art" and "Coats of arms of Paris" match, "Mapleton" or "Signal Hill" do not.
/// A place's own name keeps no file out (but for the words that leave no doubt, below): where every word of the match is written as a name's word and it stands
/// in a name (two or more such words together: `Medicine Hat`, `Hollywood Sign`, `Gore (New Zealand)`, `Massacre
/// Rocks`, `Bottomless Lakes`), it is a name, not a subject; Commons writes its subjects in sentence case (`Signs in
/// Paris`, `Medicine in France`). Words that are also places' names stand only in phrases besides: "Death Valley",
/// "Seal Beach", "Plan-de-la-Tour" and a "Blood Moon" stay in, while "Deaths in 1900", "Seals of cities" and "Floor
/// plans" are kept out. Flickr writes a tag in lower case with its spaces removed: a phrase matches its words run
/// together (`coatofarms`), and a few words that leave no doubt match at either end of a tag (`nudebeach`,
/// `beachtopless`); these words keep a file out in a name too (a naturist village). Each category is split into words once and each word looked up once, with no copy per phrase.
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
        "buttocks", "striptease", "lingerie", "clothing optional", "free beach", "skinny dipping", "pubic hair", "sexy",
        // Other languages' common words, as Commons and Flickr users write them (diacritics dropped).
        "nackt", "nacktheit", "desnudo", "desnuda", "desnudos", "desnudas", "desnudez", "nudo", "nuda", "nudi", "nudita",
        "nudez", "naakt",
    ]
    /// Death, injury, medicine and violence.
    static let harm = [
        "corpse", "corpses", "dead bodies", "dead body", "cadaver", "cadavers", "deaths", "death masks", "dead people",
        "deceased", "autopsy", "injury", "injuries", "injured", "wound", "wounds", "bloodshed", "bleeding", "medical",
        "medicine", "surgery", "surgical", "surgeries", "anatomy", "anatomical", "pathology", "disease", "diseases",
        "execution", "executions", "executed", "violence", "murder", "murders", "massacre", "massacres", "torture", "gore",
        "mass graves", "post mortem", "human remains", "dead animals", "dead animal", "roadkill", "carcass", "carcasses",
    ]
    /// What is no photograph of a place: art and its reproductions, maps and documents, emblems, signs and scans.
    static let notAPhoto = [
        "painting", "paintings", "drawing", "drawings", "engraving", "engravings", "etching", "etchings", "lithograph",
        "lithographs", "illustration", "illustrations", "map", "maps", "diagram", "diagrams", "chart", "charts", "plans",
        "document", "documents", "text", "texts", "manuscript", "manuscripts", "scan", "scans", "scanned", "newspaper",
        "newspapers", "logo", "logos", "coat of arms", "coats of arms", "heraldry", "flag", "flags", "seal of", "seals of",
        "sign", "signs", "signage", "plaque", "plaques", "inscription", "inscriptions", "screenshot", "screenshots",
        "x ray", "x rays", "radiograph", "radiographs", "radiography", "microscopy", "micrograph", "micrographs",
        "postage stamps", "stamps", "postcards", "posters", "pd art", "pd scan", "fresco", "frescoes", "mural", "murals",
        "banknote", "banknotes", "book cover", "book covers",
    ]
    /// Words that leave no doubt even run together with another in a Flickr tag (`nudebeach`, `toplessbeach`).
    static let runTogether = ["nude", "nudes", "nudist", "nudism", "nudity", "naturist", "naturism", "topless", "erotic", "striptease"]
    /// Those words and their forms keep a file out in a name too: a place named for them is such a place
    /// (`Cap d'Agde Naturist Village`).
    static let unambiguous = Set(Self.runTogether.flatMap(Self.forms))

    /// Each phrase as its words, by reason.
    private let phrases: [(words: [String], reason: Reason)]
    /// The phrases (indices) a word can start: a phrase's first word, and each form of a phrase of one word.
    private let starting: [String: [Int]]
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
        var starting = [String: [Int]]()
        for (index, phrase) in phrases.enumerated() {
            for form in phrase.words.count == 1 ? Self.forms(phrase.words[0]) : [phrase.words[0]] { starting[form, default: []].append(index) }
        }
        self.phrases = phrases
        self.starting = starting
        let hex = String(StableHash.of(phrases.map { $0.words.joined(separator: " ") }.joined(separator: "|")), radix: 16)
        self.digest = String(repeating: "0", count: 16 - hex.count) + hex
    }

    package static func == (lhs: KeptOut, rhs: KeptOut) -> Bool { lhs.phrases.map(\.words) == rhs.phrases.map(\.words) }

    /// Why a file with these category names is kept out, or nil.
    func reason(categories: [String]) -> Reason? {
        for category in categories {
            let words = MatchWords(category).words
            for start in words.indices {
                guard let indices = self.starting[words[start].text] else { continue }
                for index in indices {
                    let phrase = self.phrases[index]
                    let end = start + phrase.words.count
                    guard end <= words.count, (start + 1..<end).allSatisfy({ words[$0].text == phrase.words[$0 - start] }) else { continue }
                    if !Self.isName(words, start..<end) || Self.unambiguous.contains(phrase.words[0]) { return phrase.reason }
                }
            }
        }
        return nil
    }

    /// Why a photo with these Flickr tags is kept out, or nil. Flickr writes a tag in lower case with its spaces
    /// removed: a phrase matches its words run together (`coatofarms`), a word itself and its forms, and the words that
    /// leave no doubt at either end of a tag (`nudebeach`).
    func reason(tags: [String]) -> Reason? {
        for tag in tags {
            let text = MatchWords(tag).words.map(\.text).joined()
            guard !text.isEmpty else { continue }
            if let indices = self.starting[text], let index = indices.first(where: { self.phrases[$0].words.count == 1 }) {
                return self.phrases[index].reason
            }
            if let phrase = self.phrases.first(where: { $0.words.count > 1 && $0.words.joined() == text }) { return phrase.reason }
            if Self.runTogether.contains(where: { text.count > $0.count && (text.hasPrefix($0) || text.hasSuffix($0)) }) { return .nudity }
        }
        return nil
    }

    /// A name's words as the list compares them (``MatchWords``), lower case.
    static func words(_ text: String) -> [String] { MatchWords(text).words.map(\.text) }

    /// A word and the forms it takes: plurals (`s`; `es` after s, x, z, ch, sh and o; `ies` for a `y` after a
    /// consonant) and `-ness`.
    static func forms(_ word: String) -> [String] {
        var forms = [word, word + "s", word + "ness"]
        if ["s", "x", "z", "ch", "sh", "o"].contains(where: word.hasSuffix) { forms.append(word + "es") }
        if word.count > 2, word.hasSuffix("y"), let before = word.dropLast().last, !"aeiou".contains(before) {
            forms.append(word.dropLast() + "ies")
        }
        return forms
    }

    /// Whether the words in `range` are a name's: every one written as a name's word, and more than one such word
    /// together (the match itself, or with a neighbour).
    private static func isName(_ words: [MatchWords.Word], _ range: Range<Int>) -> Bool {
        guard range.allSatisfy({ words[$0].titled }) else { return false }
        if range.count > 1 { return true }
        return (range.lowerBound > 0 && words[range.lowerBound - 1].titled) || (range.upperBound < words.count && words[range.upperBound].titled)
    }
}
