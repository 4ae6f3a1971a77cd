/// What a photo shows, read from its Commons categories as Commons names them: "X in Y", "X of Y", "Views of Y",
/// "Interior of Y", "Y from Z", "X at night". The subject noun X (the words before the first joining word, its last word
/// the head) says what is shown; the rest says where or when. A view of the place (views, skylines, streets, squares,
/// bridges, buildings' exteriors, mountains, beaches, sunsets…) ranks first, a subject that is not one (sculptures and
/// museum objects, food, vehicles, shop fronts, doors, signs, interiors, people, animals, documents…) after every view
/// of the same standing, and a photo none of whose categories says either in between. A category without that
/// structure (a proper name: "Eiffel Tower", "Buses Hill") says nothing; nor does a head in neither table.
enum PhotoSubject: Int, Sendable, Codable {
    case notView = 0
    case unknown = 1
    case view = 2

    /// The subject of a file with these categories (lower case or not): a view when any names one, else not a view when
    /// any names such a subject, else unknown.
    static func of(categories: [String]) -> PhotoSubject {
        var found = PhotoSubject.unknown
        for category in categories {
            switch Self.head(of: category).flatMap(Self.kind) {
            case .view?: return .view
            case .notView?: found = .notView
            default: break
            }
        }
        return found
    }

    /// The head noun of a category's subject: the last word before its first joining word ("night views of paris":
    /// views), or before "at night" and the like; nil when nothing joins it to a place (a proper name).
    /// One thing's own name in that form ("Statue of Liberty", "Bust of Nefertiti": a singular ``namedWhenSingular``
    /// before `of`) has none either: it may be a landmark.
    static func head(of category: String) -> String? {
        let words = category.lowercased().split(whereSeparator: { $0 == " " || $0 == "_" }).map(String.init)
        guard let join = words.indices.dropFirst().first(where: { Self.joins.contains(words[$0]) }) else { return nil }
        if words[join] == "of", Self.namedWhenSingular.contains(words[join - 1]) { return nil }
        return words[join - 1]
    }

    static let namedWhenSingular: Set<String> = ["statue", "bust", "sculpture", "monument", "memorial"]

    /// The table's verdict on a head noun, singular or plural (`buses`, `churches`, `antiquities`, `people`).
    static func kind(_ head: String) -> PhotoSubject? {
        if Self.viewForms.contains(head) { return .view }
        if Self.notViewForms.contains(head) { return .notView }
        return nil
    }

    /// The tables' words in every form the kept-out list matches (``KeptOut/forms(_:)``: plurals by English rules).
    private static let viewForms = Set(Self.views.flatMap(KeptOut.forms))
    private static let notViewForms = Set(Self.notViews.flatMap(KeptOut.forms))

    /// The words that join a subject to a place, a time or an owner.
    static let joins: Set<String> = [
        "in", "of", "at", "on", "from", "over", "near", "along", "across", "above", "around", "under", "by", "during", "with", "inside",
        "seen",
    ]

    /// Subjects that show the place: its views, its streets and squares, its landmarks from outside, its land and water.
    static let views: Set<String> = [
        "view", "panorama", "skyline", "cityscape", "townscape", "landscape", "seascape", "scenery", "vista", "street", "avenue",
        "boulevard", "road", "alley", "lane", "square", "plaza", "piazza", "bridge", "tower", "skyscraper", "building", "exterior",
        "facade", "façade", "architecture", "castle", "palace", "church", "cathedral", "basilica", "mosque", "temple", "abbey",
        "monastery", "fortress", "fort", "lighthouse", "mountain", "peak", "hill", "valley", "cliff", "beach", "coast", "coastline",
        "shore", "bay", "harbour", "harbor", "port", "marina", "waterfront", "lake", "river", "canal", "waterfall", "sea", "island",
        "forest", "wood", "field", "meadow", "park", "garden", "sunset", "sunrise", "sky", "cloud", "aerial", "neighbourhood",
        "neighborhood", "district", "quarter", "village", "town", "city", "embankment", "promenade", "fountain", "ruin", "glacier",
        "desert", "dune", "volcano",
    ]

    /// Subjects that are not a view of the place: objects, food, vehicles, shop fronts, details, rooms, people, animals,
    /// documents, events.
    static let notViews: Set<String> = [
        "sculpture", "statue", "bust", "relief", "artifact", "artefact", "antiquity", "object", "collection", "exhibit",
        "exhibition", "painting", "drawing", "mosaic", "coin", "jewellery", "jewelry", "pottery", "vase", "food", "dish", "meal",
        "cuisine", "dessert", "drink", "bread", "cake", "fruit", "vegetable", "bus", "car", "automobile", "vehicle", "train",
        "locomotive", "tram", "truck", "lorry", "motorcycle", "bicycle", "aircraft", "airplane", "taxi", "shop", "shopfront",
        "storefront", "store", "restaurant", "cafe", "café", "bar", "door", "doorway", "window", "sign", "signage", "plaque",
        "inscription", "logo", "poster", "advertisement", "graffiti", "detail", "interior", "room", "hall", "staircase", "ceiling",
        "people", "person", "man", "men", "woman", "women", "child", "children", "portrait", "crowd", "musician", "athlete",
        "politician", "animal", "dog", "cat", "bird", "insect", "flower", "plant", "document", "map", "book", "text", "letter",
        "manuscript", "ticket", "coat", "flag", "event", "concert", "protest", "demonstration", "festival", "parade", "meeting",
        "conference", "athletics", "match", "game", "race", "selfie",
    ]
}
