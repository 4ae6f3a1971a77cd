/// The words of a category name or a tag as the kept-out list compares them, whatever way they were written:
/// compatibility forms folded (NFKD: full-width `Ｎｕｄｅ`, ligatures), diacritics dropped (`Nudé`, Turkish `İ`),
/// format characters dropped (a zero-width space or a soft hyphen inside a word), and letters that only look Latin
/// (Cyrillic `е`, Greek `ο`, dotless `ı`) read as the Latin letters they look like; then lower case. Letters and digits
/// make words; anything else separates them. Each word says whether it was written as a name's word is (`Title`
/// case: a capital, then a small letter), which is how the list tells `Medicine Hat` from `Medicine in France`.
struct MatchWords {
    struct Word: Equatable {
        let text: String
        let titled: Bool
    }

    let words: [Word]

    init(_ text: String) {
        var words = [Word]()
        var current = String.UnicodeScalarView()
        var (first, small) = (Unicode.Scalar?.none, false)
        func close() {
            guard !current.isEmpty else { return }
            let titled = (first?.properties.isUppercase ?? false) && small
            words.append(Word(text: String(current).lowercased(), titled: titled))
            current = String.UnicodeScalarView()
            (first, small) = (nil, false)
        }
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .format, .nonspacingMark, .spacingMark, .enclosingMark: continue  // inside a word, as if not there
            default: break
            }
            let latin = Self.lookalikes[scalar] ?? scalar
            guard latin.properties.isAlphabetic || latin.properties.numericType != nil else {
                close()
                continue
            }
            if first == nil { first = latin } else if latin.properties.isLowercase { small = true }
            current.append(latin)
        }
        close()
        self.words = words
    }

    /// Letters of other scripts that look like Latin ones, as a name written to slip past a list would use them.
    static let lookalikes: [Unicode.Scalar: Unicode.Scalar] = {
        let pairs: [(String, String)] = [
            ("аеорсхуіјѕԁһ", "aeopcxyijsdh"), ("АВЕКМНОРСТХІЈЅ", "ABEKMHOPCTXIJS"),  // Cyrillic
            ("οαικνρτυχ", "oaikvptux"), ("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX"),  // Greek
            ("ıɡ", "ig"),
        ]
        var table = [Unicode.Scalar: Unicode.Scalar]()
        for (from, to) in pairs {
            for (a, b) in zip(from.unicodeScalars, to.unicodeScalars) { table[a] = b }
        }
        return table
    }()
}
