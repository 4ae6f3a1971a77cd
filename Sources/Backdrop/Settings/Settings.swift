import Foundation
import NIOCore

/// Every setting of the service. Defaults here match the shipped `config.json`; a config file may leave keys out.
public struct Settings: Sendable, Equatable {
    public struct Server: Sendable, Equatable {
        public var host = "127.0.0.1"
        public var port = 8080
        public var publicFolder = "Public"
        public var logLevel = LogLevelSetting.info
        /// How long a connection may sit idle (between requests, or before its first) before it is closed.
        public var idleTimeoutSeconds = 60
        /// How long a client may take to send a request's head, or the next part of a request's body.
        public var requestHeadTimeoutSeconds = 10
        /// Open client connections at most; past it, accepting pauses until one closes.
        public var maxConnections = 10_000
        /// Connections the kernel may queue before they are accepted (capped by the system's own maximum).
        public var backlog = 1024
        /// Proxies (addresses or CIDR ranges) whose `X-Real-IP` or `X-Forwarded-For` names the client; none by default,
        /// so every client is its peer address.
        public var trustedProxies: [IPRange] = []
        /// Origins whose pages may read Backdrop's answers from scripts (CORS): `*` for any, a list, or none (off).
        public var corsOrigins = CORSOrigins.any
    }

    public struct Photos: Sendable, Equatable {
        public var stockFolder = "StockPhotos"
        public var geohashPrecision = 5
        /// Length of the window during which a cell keeps its photo.
        public var windowSeconds = 900
    }

    public struct Render: Sendable, Equatable {
        public var width = 640
        public var height = 1136
        public var blur = 1.0
        public var style = EffectStyle.light
        /// PNG, JPEG, WebP and AVIF encoder settings.
        public var encoders = EncoderSettings()
        /// Prepared images (cover-cropped photos and their light-effect copies) kept in memory; formerly `memoryCacheMB`.
        public var preparedImagesMemoryMB = 256
        /// The longest a render may be expected to wait for the render pool before its request gets 503.
        public var maxQueueWaitMs = 1000
        /// Render jobs queued or running at once, whatever their expected wait (a bound on the queue's memory); 0 sizes
        /// it to the machine (``effectiveMaxPending``).
        public var maxPending = 0

        /// Render jobs per core when `maxPending` is 0: far more than `maxQueueWaitMs` admits of real renders (tens of
        /// milliseconds each), so that only the expected wait decides; tiny renders stop here.
        public static let pendingPerCore = 1000

        /// The render queue's bound in force.
        public var effectiveMaxPending: Int {
            self.maxPending > 0 ? self.maxPending : Self.pendingPerCore * max(1, NIOCore.System.coreCount)
        }
    }

    public struct Images: Sendable, Equatable {
        public var maxSourceMegapixels = 50
        public var maxDecoderMemoryMB = 512
        public var maxProgressiveScans = 100

        public var limits: DecodeLimits {
            DecodeLimits(maxPixels: self.maxSourceMegapixels * 1_000_000, maxDecoderMemory: self.maxDecoderMemoryMB << 20,
                         maxProgressiveScans: self.maxProgressiveScans)
        }
    }

    /// Read and checked now; used by the Flickr photo source.
    public struct Flickr: Sendable, Equatable {
        public var apiKey = ""
        public var endpoint = "https://api.flickr.com/services/rest/"
        public var radiusKm = 10.0
        public var tags = ""
        public var licenses = "4,5,7,8,9,10,11,12"
        public var minUploadAgeDays = 1825
        public var callsPerHour = 3600
        public var connectTimeoutSeconds = 5.0
        public var totalTimeoutSeconds = 15.0
        /// How long one request may wait on Flickr in all (searches with widening, downloads with the replacement,
        /// reading every body) before it gets its fallback.
        public var requestDeadlineSeconds = 10.0
        public var maxDownloadMB = 20
        public var extraImageHosts: [String] = []
        /// Downloaded photos kept in memory.
        public var downloadCacheMB = 64
        /// Cells whose search results are kept in memory.
        public var cellCacheEntries = 10000

        var allowedLicenses: Set<Int> {
            Set(self.licenses.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) })
        }
    }

    /// Read and checked now; used by the disk cache.
    public struct Cache: Sendable, Equatable {
        /// Empty turns the disk cache off.
        public var folder = "cache"
        /// How long a rendered image is kept, never past the end of its window.
        public var expirySeconds = 900
        /// Disk space the cache takes at most, counted in allocated blocks.
        public var maxMB = 512
        /// Files the cache holds at most; 0 sizes it to the budget (``effectiveMaxFiles``).
        public var maxFiles = 0
        public var maxStaleHours = 24
        /// `max-age` for stock and stale fallbacks, so that clients come back for the real photo soon.
        public var fallbackMaxAgeSeconds = 60
        /// `stale-while-revalidate` on image and JSON answers: one window by default; 0 leaves it out.
        public var staleWhileRevalidateSeconds = 900
        /// Rendered (encoded) images kept in memory, in front of the disk cache; formerly `memoryMB`.
        public var renderedImagesMemoryMB = 128
        /// Blurred previews and placeholders for `/background.json`, about 3 kB a cell-window.
        public var previewsMemoryMB = 8
        /// Rendered images' cache files held open for `sendfile` at most (each takes a descriptor).
        public var openFiles = 1024

        /// Files at most when `maxFiles` is 0: one per 16 KiB of the budget (32,768 for 512 MB). Backdrop's files are
        /// rendered images of tens of kilobytes and photos of hundreds; renders smaller than a block stay in memory.
        public var effectiveMaxFiles: Int {
            self.maxFiles > 0 ? self.maxFiles : max(1024, self.maxMB * 64)
        }

        /// Rendered entries smaller than this are kept in memory only: on disk each would take a whole block and an inode.
        public static let smallestRenderOnDisk = 4096
    }

    /// Sharing one Flickr key's budget, searches and discoveries among replicas through PostgreSQL.
    public struct Cluster: Sendable, Equatable {
        /// `postgres://user:password@host:port/database`; empty: this replica works alone, as on one machine.
        public var postgresURL = ""
        /// How long a replica's claim on a cell-window lasts; one that dies holding it delays the cell by at most this.
        public var leaseSeconds = 15.0
        /// The most a request waits on the database in all, before it goes on with this replica's local state.
        public var timeoutSeconds = 2.0
        /// Replicas assumed to share the key while the database is unreachable: each takes that share of the budget.
        public var expectedReplicas = 4
    }

    public var server = Server()
    public var photos = Photos()
    public var render = Render()
    public var images = Images()
    public var flickr = Flickr()
    public var cache = Cache()
    public var cluster = Cluster()
    /// What reading the configuration found worth saying (old key names, for instance), to be logged at start.
    public var warnings: [String] = []

    public init() {}

    public var renderDefaults: RenderSpec {
        RenderSpec(size: PixelSize(width: self.render.width, height: self.render.height), style: self.render.style,
                   blurHundredths: Int((self.render.blur * 100).rounded()))
    }
}
