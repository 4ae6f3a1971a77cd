extension Settings {
    /// `cache`: the rendered images, in memory and on disk, and how long answers may be kept.
    package struct Cache: Sendable, Equatable {
        /// Empty turns the disk cache off.
        package var folder = "cache"
        /// How long a rendered image is kept, never past the end of its window (`expirySeconds`).
        package var expiry = Duration.seconds(900)
        /// Disk space the cache takes at most, counted in allocated blocks.
        package var maxMB = 512
        /// Files the cache holds at most; 0 sizes it to the budget (``effectiveMaxFiles``).
        package var maxFiles = 0
        /// How old a photo may be served when its source cannot answer (`maxStaleHours`).
        package var maxStale = Duration.seconds(24 * 3600)
        /// `max-age` for stock and stale fallbacks, so that clients come back for the real photo soon
        /// (`fallbackMaxAgeSeconds`).
        package var fallbackMaxAge = Duration.seconds(60)
        /// `stale-while-revalidate` on image and JSON answers: one window by default; 0 leaves it out
        /// (`staleWhileRevalidateSeconds`).
        package var staleWhileRevalidate = Duration.seconds(900)
        /// Rendered (encoded) images kept in memory, in front of the disk cache; formerly `memoryMB`.
        package var renderedImagesMemoryMB = 128
        /// Blurred previews and placeholders for `/background.json`, about 3 kB a cell-window.
        package var previewsMemoryMB = 8
        /// Rendered images' cache files held open for `sendfile` at most (each takes a descriptor).
        package var openFiles = 1024

        package init() {}

        /// Files at most when `maxFiles` is 0: one per 16 KiB of the budget (32,768 for 512 MB). Backdrop's files are
        /// rendered images of tens of kilobytes and photos of hundreds; renders smaller than a block stay in memory.
        package var effectiveMaxFiles: Int {
            self.maxFiles > 0 ? self.maxFiles : max(1024, self.maxMB * 64)
        }

        /// Rendered entries smaller than this are kept in memory only: on disk each would take a whole block and an inode.
        package static let smallestRenderOnDisk = 4096
    }
}

extension Settings.Cache: SettingsSection {
    static let name = "cache"

    mutating func read(_ section: inout SectionReader) throws {
        self.folder = try section.folder("folder", default: self.folder, env: "BACKDROP_CACHE_FOLDER", emptyTurnsOff: true)
        self.expiry = try section.duration("expirySeconds", default: self.expiry, unit: .seconds, in: 1...86400)
        self.maxMB = try section.int("maxMB", default: self.maxMB, in: 1...1_048_576)
        self.maxFiles = try section.int("maxFiles", default: self.maxFiles, in: 0...100_000_000)
        self.maxStale = try section.duration("maxStaleHours", default: self.maxStale, unit: .hours, in: 0...720)
        self.fallbackMaxAge = try section.duration("fallbackMaxAgeSeconds", default: self.fallbackMaxAge, unit: .seconds, in: 0...86400)
        self.staleWhileRevalidate = try section.duration(
            "staleWhileRevalidateSeconds",
            default: self.staleWhileRevalidate,
            unit: .seconds,
            in: 0...604_800
        )
        let rendered = try section.renamed("memoryMB", to: "renderedImagesMemoryMB")
        self.renderedImagesMemoryMB = try section.int(rendered, default: self.renderedImagesMemoryMB, in: 0...65536)
        self.previewsMemoryMB = try section.int("previewsMemoryMB", default: self.previewsMemoryMB, in: 0...4096)
        self.openFiles = try section.int("openFiles", default: self.openFiles, in: 0...65536)
    }
}
