extension StockPhotoSource {
    /// The stock photos ranked for a sky and a class of screen: those whose sky is nearest the sky at the place now
    /// (all of them without a location) and, among those, that fit the screen's class best
    /// (``PhotoRanking/fit(width:height:)``: a portrait on a phone, a landscape on a desktop), the pool; then the
    /// others, nearest and best fitting first.
    struct Ranked: Sendable {
        /// The sky at the place during the window (none without a location) and the class of screen.
        struct Key: Hashable, Sendable {
            let phase: SunPhase?
            let shape: ScreenShape

            init(place: Place, window: TimeWindow, shape: ScreenShape) {
                self.phase = if case .cell(let cell) = place { SunPhase(cell: cell, window: window) } else { nil }
                self.shape = shape
            }
        }

        let pool: [SourcePhoto]
        let rest: [SourcePhoto]

        /// `photos` (of `sizes`) ranked for `key`'s sky and class of screen.
        init(_ photos: [SourcePhoto], sizes: [PixelSize], key: Key) {
            guard !photos.isEmpty else {
                (self.pool, self.rest) = ([], [])
                return
            }
            let phase = key.phase
            let ranking = PhotoRanking(phase: phase ?? .day, shape: key.shape)
            let score = photos.indices.map {
                [phase == nil ? 0 : ranking.skyMatch(photos[$0].shown), ranking.fit(width: sizes[$0].width, height: sizes[$0].height)]
            }
            let nearest = photos.indices.sorted { score[$0] != score[$1] ? score[$1].lexicographicallyPrecedes(score[$0]) : $0 < $1 }
            self.pool = nearest.filter { score[$0] == score[nearest[0]] }.map { photos[$0] }
            self.rest = nearest.filter { score[$0] != score[nearest[0]] }.map { photos[$0] }
        }

        /// The order `place` gets them in `window`: the pool starting at the place's turn (``PhotoChoice``: the whole
        /// pool before any repeats, never the previous window's), then the rest.
        func order(place: Place, window: TimeWindow) -> [SourcePhoto] {
            guard !self.pool.isEmpty else { return self.rest }
            let start = PhotoChoice.index(place: place, window: window, count: self.pool.count)
            return Array(self.pool[start...] + self.pool[..<start]) + self.rest
        }
    }
}
