/// Bounds on the work and memory a (possibly hostile) source image may cost.
package struct DecodeLimits: Sendable, Equatable {
    /// Largest width x height accepted, checked on the header before any pixel memory is allocated.
    package var maxPixels: Int
    /// Working memory libjpeg may use (progressive coefficient buffers and the like).
    package var maxDecoderMemory: Int
    /// Most scans a progressive JPEG may contain.
    package var maxProgressiveScans: Int

    package init(maxPixels: Int = 50_000_000, maxDecoderMemory: Int = 512 << 20, maxProgressiveScans: Int = 100) {
        self.maxPixels = maxPixels
        self.maxDecoderMemory = maxDecoderMemory
        self.maxProgressiveScans = maxProgressiveScans
    }
}
