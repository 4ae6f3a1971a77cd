import NIOCore

extension Settings {
    /// `render`: the default image, its encoders and the render pool.
    package struct Render: Sendable, Equatable {
        package var width = 640
        package var height = 1136
        package var blur = 1.0
        package var style = EffectStyle.light
        /// PNG, JPEG, WebP and AVIF encoder settings.
        package var encoders = EncoderSettings()
        /// Prepared images (cover-cropped photos and their light-effect copies) kept in memory; formerly `memoryCacheMB`.
        package var preparedImagesMemoryMB = 256
        /// The longest a render may be expected to wait for the render pool before its request gets 503
        /// (`maxQueueWaitMs`).
        package var maxQueueWait = Duration.milliseconds(1000)
        /// Render jobs queued or running at once, whatever their expected wait (a bound on the queue's memory); 0 sizes
        /// it to the machine (``effectiveMaxPending``).
        package var maxPending = 0
        /// Threads that render; 0 sizes it to the machine (``effectiveWorkers``). Each holds up to about 48 MB of
        /// scratch while it renders a large image, outside the memory budgets.
        package var workers = 0

        package init() {}

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

        /// The size, style and blur a request gets for what it leaves out.
        package var defaults: RenderSpec {
            RenderSpec(
                size: PixelSize(width: self.width, height: self.height),
                style: self.style,
                blurHundredths: Int(total: (self.blur * 100).rounded())
            )
        }
    }
}

extension Settings.Render: SettingsSection {
    static let name = "render"

    mutating func read(_ section: inout SectionReader) throws {
        self.width = try section.int("width", default: self.width, in: BackgroundLimits.sideRange)
        self.height = try section.int("height", default: self.height, in: BackgroundLimits.sideRange)
        guard self.width * self.height <= BackgroundLimits.maxPixels else {
            throw ConfigError(key: section.name("height"), "width x height must be at most \(BackgroundLimits.maxPixels) pixels")
        }
        self.blur = try section.double("blur", default: self.blur, in: 0...1)
        self.style = try section.choice("style", default: self.style)
        var encoders = self.encoders
        encoders.pngEncoder = try section.choice("pngEncoder", default: encoders.pngEncoder)
        for retired in ["pngLevel", "pngFilter"] {
            section.retired(retired) {
                "\($0) is not used and can be removed: PNG rows are filtered Up or Paeth and compressed at one level (render.pngEncoder chooses the compressor)"
            }
        }
        encoders.sharpFloor = try section.double("sharpFloorDB", default: encoders.sharpFloor, in: 20...60)
        encoders.blurredFloor = try section.double("blurredFloorDB", default: encoders.blurredFloor, in: 20...60)
        encoders.webpMethod = try section.int("webpMethod", default: encoders.webpMethod, in: 0...6)
        for retired in ["jpegQuality", "webpQuality", "avifQuality", "avifBlurredQuality"] {
            section.retired(retired) {
                "\($0) is not used and can be removed: JPEG, WebP and AVIF quality is chosen per image to meet render.sharpFloorDB up to blur 0.5 and render.blurredFloorDB at blur 1"
            }
        }
        encoders.avifSpeed = try section.int("avifSpeed", default: encoders.avifSpeed, in: 0...10)
        self.encoders = encoders
        let prepared = try section.renamed("memoryCacheMB", to: "preparedImagesMemoryMB")
        self.preparedImagesMemoryMB = try section.int(prepared, default: self.preparedImagesMemoryMB, in: 0...65536)
        self.maxQueueWait = try section.duration("maxQueueWaitMs", default: self.maxQueueWait, unit: .milliseconds, in: 10...60000)
        self.maxPending = try section.int("maxPending", default: self.maxPending, in: 0...1_000_000)
        self.workers = try section.int("workers", default: self.workers, in: 0...256)
    }
}
