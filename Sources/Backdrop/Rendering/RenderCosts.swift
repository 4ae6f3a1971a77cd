/// What a job on the render pool does, for its cost estimate (``RenderCosts``).
enum RenderWork: Hashable, Sendable {
    /// Decode the source photo and cover-crop it (a full render's first half).
    case prepare
    /// Blend and encode from prepared images (a re-blend at a new `blur`, or a full render's second half).
    case encode(OutputFormat)
    /// The blurred preview of `/background.json`.
    case preview
}

/// Estimated cost of render jobs: per kind of work, a fixed part and a part per output megapixel, the latter an
/// exponentially weighted mean of what this machine measured (starting from figures measured on the bench machine's
/// release build).
struct RenderCosts {
    /// Every job's fixed part: scheduling, buffers, the encoder's set-up.
    static let fixed = Duration.microseconds(300)
    /// Jobs smaller than this teach nothing about the cost per megapixel (their fixed part dominates).
    static let learnedFromMegapixels = 0.05
    static let weight = 0.2

    private var secondsPerMegapixel: [RenderWork: Double] = [
        .prepare: 0.016, .preview: 0.004,
        .encode(.png): 0.018, .encode(.jpeg): 0.022, .encode(.webp): 0.032, .encode(.avif): 0.050,
    ]

    func estimate(_ work: RenderWork, pixels: Int) -> Duration {
        Self.fixed + .seconds((self.secondsPerMegapixel[work] ?? 0.05) * Double(pixels) / 1_000_000)
    }

    mutating func learn(_ work: RenderWork, pixels: Int, took: Duration) {
        let megapixels = Double(pixels) / 1_000_000
        guard megapixels >= Self.learnedFromMegapixels else { return }
        let measured = max(0, (took - Self.fixed) / .seconds(1)) / megapixels
        let old = self.secondsPerMegapixel[work] ?? measured
        self.secondsPerMegapixel[work] = old + Self.weight * (measured - old)
    }
}
