/// Turns a chosen photo into the PNG a request asks for.
///
/// The cover-cropped photo and its effect copy are kept per (photo, variant, size, style) in memory, so the
/// requests of one cell and window that differ only in `blur` cost a blend and a PNG encode.
public struct Renderer: Sendable {
    struct PreparedKey: Hashable, Sendable {
        let photoID: String
        let size: PixelSize
        let style: EffectStyle
    }

    let png: PNGOptions
    let limits: DecodeLimits
    let gate: RenderGate
    let prepared: MemoryLRU<PreparedKey, PreparedImages>

    public init(png: PNGOptions, limits: DecodeLimits, memoryBudget: Int, maxPendingRenders: Int) {
        self.png = png
        self.limits = limits
        self.gate = RenderGate(maxPending: maxPendingRenders)
        self.prepared = MemoryLRU(budget: memoryBudget) { $0.byteCount }
    }

    public func render(_ photo: SourcePhoto, from source: any PhotoSource, spec: RenderSpec) async throws -> [UInt8] {
        let key = PreparedKey(photoID: photo.id, size: spec.size, style: spec.style)
        let (limits, gate) = (self.limits, self.gate)
        let prepared = try await self.prepared.value(for: key) {
            let encoded = try await source.imageData(for: photo, covering: spec.size)
            return try await gate.run { try PreparedImages.make(from: encoded, size: spec.size, style: spec.style, limits: limits) }
        }
        let options = self.png
        return try await gate.run { try prepared.png(hundredths: spec.blurHundredths, options: options) }
    }
}
