import Foundation
import NIOCore

/// Every setting of the service. Defaults here match the shipped `config.json`; a config file may leave keys out.
package struct Settings: Sendable, Equatable {
    package struct Server: Sendable, Equatable {
        package var host = "127.0.0.1"
        package var port = 8080
        package var publicFolder = "Public"
        package var logLevel = LogLevelSetting.info
        /// `text`: one readable line per entry; `json`: one JSON object per line (Loki, Elasticsearch, cloud logs).
        package var logFormat = LogFormatSetting.text
        /// How long a connection may sit idle (between requests, or before its first) before it is closed.
        package var idleTimeoutSeconds = 60
        /// How long a client may take to send a request's head, or the next part of a request's body.
        package var requestHeadTimeoutSeconds = 10
        /// Open client connections at most; past it, accepting pauses until one closes.
        package var maxConnections = 10_000
        /// Connections the kernel may queue before they are accepted (capped by the system's own maximum).
        package var backlog = 1024
        /// Proxies (addresses or CIDR ranges) whose `X-Real-IP` or `X-Forwarded-For` names the client; none by default,
        /// so every client is its peer address.
        package var trustedProxies: [IPRange] = []
        /// Clients are networks: IPv4 addresses cut to this many bits for the render queue's turns (32: one address).
        package var clientPrefixIPv4 = 32
        /// IPv6 addresses cut to this many bits (64: the subnet one host or home line is given).
        package var clientPrefixIPv6 = 64
        /// Origins whose pages may read Backdrop's answers from scripts (CORS): `*` for any, a list, or none (off).
        package var corsOrigins = CORSOrigins.any
    }

    package struct Photos: Sendable, Equatable {
        package var stockFolder = "StockPhotos"
        package var geohashPrecision = 5
        /// Length of the window during which a cell keeps its photo.
        package var windowSeconds = 900
        /// Photo ids and owner ids never to serve (``PhotoDenylist``).
        package var deny: [String] = []
        /// Where photos come from, in order: each stands in when the one before cannot serve. `flickr` is used only
        /// with a key; `stock` must come last.
        package var sources: [PhotoSourceName] = [.flickr, .commons, .stock]
    }

    package struct Render: Sendable, Equatable {
        package var width = 640
        package var height = 1136
        package var blur = 1.0
        package var style = EffectStyle.light
        /// PNG, JPEG, WebP and AVIF encoder settings.
        package var encoders = EncoderSettings()
        /// Prepared images (cover-cropped photos and their light-effect copies) kept in memory; formerly `memoryCacheMB`.
        package var preparedImagesMemoryMB = 256
        /// The longest a render may be expected to wait for the render pool before its request gets 503.
        package var maxQueueWaitMs = 1000
        /// Render jobs queued or running at once, whatever their expected wait (a bound on the queue's memory); 0 sizes
        /// it to the machine (``effectiveMaxPending``).
        package var maxPending = 0
        /// Threads that render; 0 sizes it to the machine (``effectiveWorkers``). Each holds up to about 48 MB of
        /// scratch while it renders a large image, outside the memory budgets.
        package var workers = 0

        /// Render threads when `workers` is 0: the CPU quota of the process's cgroup when one is set (a container's
        /// `limits.cpu`), else the cores, at most ``maxAutomaticWorkers``.
        package static let maxAutomaticWorkers = 8

        /// The render pool's size in force.
        package var effectiveWorkers: Int {
            self.workers > 0 ? self.workers : min(Self.maxAutomaticWorkers, CPUQuota.current() ?? NIOCore.System.coreCount)
        }

        /// Render jobs per core when `maxPending` is 0: far more than `maxQueueWaitMs` admits of real renders (tens of
        /// milliseconds each), so that only the expected wait decides; tiny renders stop here.
        package static let pendingPerCore = 1000

        /// The render queue's bound in force.
        package var effectiveMaxPending: Int {
            self.maxPending > 0 ? self.maxPending : Self.pendingPerCore * max(1, self.effectiveWorkers)
        }
    }

    package struct Images: Sendable, Equatable {
        package var maxSourceMegapixels = 50
        package var maxDecoderMemoryMB = 512
        package var maxProgressiveScans = 100

        package var limits: DecodeLimits {
            DecodeLimits(
                maxPixels: self.maxSourceMegapixels * 1_000_000,
                maxDecoderMemory: self.maxDecoderMemoryMB << 20,
                maxProgressiveScans: self.maxProgressiveScans
            )
        }
    }

    /// Read and checked now; used by the Flickr photo source.
    package struct Flickr: Sendable, Equatable {
        package var apiKey = ""
        package var endpoint = "https://api.flickr.com/services/rest/"
        package var radiusKm = 10.0
        package var tags = ""
        package var licenses = "4,5,7,8,9,10,11,12"
        package var minUploadAgeDays = 1825
        package var callsPerHour = 3600
        package var connectTimeoutSeconds = 5.0
        package var totalTimeoutSeconds = 15.0
        /// How long one request may wait on Flickr in all (searches with widening, downloads with the replacement,
        /// reading every body) before it gets its fallback.
        package var requestDeadlineSeconds = 10.0
        package var maxDownloadMB = 20
        package var extraImageHosts: [String] = []
        /// Downloaded photos kept in memory.
        package var downloadCacheMB = 64
        /// Cells whose search results are kept in memory.
        package var cellCacheEntries = 10000

        var allowedLicenses: Set<Int> {
            Set(self.licenses.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) })
        }
    }

    /// Read and checked now; used by the disk cache.
    package struct Cache: Sendable, Equatable {
        /// Empty turns the disk cache off.
        package var folder = "cache"
        /// How long a rendered image is kept, never past the end of its window.
        package var expirySeconds = 900
        /// Disk space the cache takes at most, counted in allocated blocks.
        package var maxMB = 512
        /// Files the cache holds at most; 0 sizes it to the budget (``effectiveMaxFiles``).
        package var maxFiles = 0
        package var maxStaleHours = 24
        /// `max-age` for stock and stale fallbacks, so that clients come back for the real photo soon.
        package var fallbackMaxAgeSeconds = 60
        /// `stale-while-revalidate` on image and JSON answers: one window by default; 0 leaves it out.
        package var staleWhileRevalidateSeconds = 900
        /// Rendered (encoded) images kept in memory, in front of the disk cache; formerly `memoryMB`.
        package var renderedImagesMemoryMB = 128
        /// Blurred previews and placeholders for `/background.json`, about 3 kB a cell-window.
        package var previewsMemoryMB = 8
        /// Rendered images' cache files held open for `sendfile` at most (each takes a descriptor).
        package var openFiles = 1024

        /// Files at most when `maxFiles` is 0: one per 16 KiB of the budget (32,768 for 512 MB). Backdrop's files are
        /// rendered images of tens of kilobytes and photos of hundreds; renders smaller than a block stay in memory.
        package var effectiveMaxFiles: Int {
            self.maxFiles > 0 ? self.maxFiles : max(1024, self.maxMB * 64)
        }

        /// Rendered entries smaller than this are kept in memory only: on disk each would take a whole block and an inode.
        package static let smallestRenderOnDisk = 4096
    }

    /// OpenTelemetry traces over OTLP/HTTP: off unless an endpoint is given here or by `OTEL_EXPORTER_OTLP_ENDPOINT`
    /// (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); the standard `OTEL_*` variables override these.
    package struct Telemetry: Sendable, Equatable {
        /// The collector's base URL (`http://collector:4318`; traces go to `/v1/traces` under it); empty: no traces.
        package var otlpEndpoint = ""
        package var serviceName = "backdrop"
        /// `OTEL_TRACES_SAMPLER`'s values: `parentbased_traceidratio` keeps `samplerRatio` of new traces and follows a
        /// caller's decision.
        package var sampler = TraceSamplerSetting.parentBasedTraceIDRatio
        package var samplerRatio = 0.1
        /// Whose `traceparent` is continued (its trace id and sampled flag): `trusted` proxies' only (the default),
        /// `always`, or `never`. Any other caller's starts a new trace, which the sampler decides as if it had none.
        package var trustIncomingTraceparent = TraceparentTrust.trusted
        /// Added to every span's resource (`deployment.environment`, `service.namespace` …).
        package var resourceAttributes: [String: String] = [:]
        /// Whether traces are exported: an endpoint here or in `OTEL_EXPORTER_OTLP_ENDPOINT` or
        /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, and neither `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none`.
        package var enabled = false
    }

    /// Sharing one Flickr key's budget, searches and discoveries among replicas through PostgreSQL.
    package struct Cluster: Sendable, Equatable {
        /// `postgres://user:password@host:port/database`; empty: this replica works alone, as on one machine.
        package var postgresURL = ""
        /// How long a replica's claim on a cell-window lasts; one that dies holding it delays the cell by at most this.
        package var leaseSeconds = 15.0
        /// The most a request waits on the database in all, before it goes on with this replica's local state.
        package var timeoutSeconds = 2.0
        /// Replicas assumed to share the key while the database is unreachable: each takes that share of the budget.
        package var expectedReplicas = 4
    }

    package var server = Server()
    package var photos = Photos()
    package var render = Render()
    package var images = Images()
    package var flickr = Flickr()
    package var commons = Commons()
    package var cache = Cache()
    package var cluster = Cluster()
    package var telemetry = Telemetry()
    /// What reading the configuration found worth saying (old key names, for instance), to be logged at start.
    package var warnings: [String] = []

    package init() {}

    package var renderDefaults: RenderSpec {
        RenderSpec(
            size: PixelSize(width: self.render.width, height: self.render.height),
            style: self.render.style,
            blurHundredths: Int((self.render.blur * 100).rounded())
        )
    }
}

package enum LogLevelSetting: String, Sendable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
}

package enum LogFormatSetting: String, Sendable, CaseIterable {
    case text, json
}

/// The samplers of `OTEL_TRACES_SAMPLER` that need nothing beyond a ratio.
package enum TraceSamplerSetting: String, Sendable, CaseIterable {
    case alwaysOn = "always_on"
    case alwaysOff = "always_off"
    case traceIDRatio = "traceidratio"
    case parentBasedAlwaysOn = "parentbased_always_on"
    case parentBasedAlwaysOff = "parentbased_always_off"
    case parentBasedTraceIDRatio = "parentbased_traceidratio"
}

/// Whose W3C `traceparent` a request's span continues (`telemetry.trustIncomingTraceparent`).
package enum TraceparentTrust: String, Sendable, CaseIterable {
    case trusted, always, never
}
