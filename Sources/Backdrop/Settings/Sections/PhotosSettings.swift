extension Settings {
    /// `photos`: where photos come from and how long a cell keeps one.
    package struct Photos: Sendable, Equatable {
        package var stockFolder = "StockPhotos"
        /// The operator's own photos, joining the stock library (``StockPhotoLibrary/loadOperators(folder:limits:)``);
        /// empty: none.
        package var extraStockFolder = ""
        package var geohashPrecision = 5
        /// Length of the window during which a cell keeps its photo. A whole number of seconds, not a `Duration`: it is
        /// the unit of the cell-window arithmetic (a window's number is Unix time divided by it).
        package var windowSeconds = 900
        /// Photo ids and owner ids never to serve (``PhotoDenylist``).
        package var deny: [String] = []
        /// Where photos come from, in order: each stands in when the one before cannot serve. `flickr` is used only
        /// with a key; `stock` must come last.
        package var sources: [PhotoOrigin] = PhotoOrigin.allCases
        /// How long one request may wait on the sources in all (searches, downloads with their replacements, reading
        /// every body) before it gets the line's end: a stale photo whose bytes are at hand, or stock
        /// (`requestDeadlineSeconds`; `flickr.requestDeadlineSeconds` until this release).
        package var requestDeadline = Duration.seconds(10)
        /// Cells whose search results each nearby source keeps in memory (`flickr.cellCacheEntries` until this release).
        package var cellCacheEntries = 10000
        /// Words and phrases a photo's categories or tags must not name, besides the shipped list (``KeptOut``).
        package var keepOut: [String] = []

        package init() {}
    }
}

extension Settings.Photos: SettingsSection {
    static let name = "photos"

    mutating func read(_ section: inout SectionReader) throws {
        self.stockFolder = try section.folder("stockFolder", default: self.stockFolder, env: "BACKDROP_STOCK_FOLDER")
        self.extraStockFolder = try section.folder(
            "extraStockFolder",
            default: self.extraStockFolder,
            env: "BACKDROP_EXTRA_STOCK_FOLDER",
            emptyTurnsOff: true
        )
        self.geohashPrecision = try section.int("geohashPrecision", default: self.geohashPrecision, in: 1...12)
        self.windowSeconds = try section.int("windowSeconds", default: self.windowSeconds, in: 60...86400)
        self.sources = try section.list("sources", default: self.sources, env: ["BACKDROP_PHOTO_SOURCES"], show: \.rawValue) { names in
            guard Set(names).count == names.count, names.last == .stock else {
                throw Invalid("must name each source once and end with \"stock\", got \(names.map(\.rawValue))")
            }
        } item: { name in
            guard let source = PhotoOrigin(rawValue: name) else {
                let names = PhotoOrigin.allCases.map(\.rawValue)
                throw Invalid(
                    "\"\(name.prefix(40))\" is not a source: use \(names.dropLast().joined(separator: ", ")) and \(names.last ?? "") (each once, stock last)"
                )
            }
            return source
        }
        try section.moved("requestDeadlineSeconds", from: "flickr")
        self.requestDeadline = try section.duration(
            "requestDeadlineSeconds",
            default: self.requestDeadline,
            unit: .seconds,
            in: 0.1...120,
            whole: false
        )
        try section.moved("cellCacheEntries", from: "flickr")
        self.cellCacheEntries = try section.int("cellCacheEntries", default: self.cellCacheEntries, in: 1...10_000_000)
        self.keepOut = try section.strings("keepOut", default: self.keepOut) { phrase in
            guard !KeptOut.words(phrase).isEmpty, phrase.utf8.count <= 100 else {
                throw Invalid("entries are words or phrases of at most 100 characters with a letter or digit; got \"\(phrase.prefix(60))\"")
            }
        }
        self.deny = try section.strings("deny", default: self.deny) { name in
            guard PhotoDenylist.isName(name) else {
                throw Invalid(
                    "entries are photo ids (\"flickr-53012345678\", \"stock-003\") or owner ids (\"12345678@N00\", \"commons-user:Jérôme_Dupont\"): 1 to 300 bytes, no spaces; got \"\(PlainText.line(String(name.prefix(60))))\""
                )
            }
        }
    }
}
