/// Turns a chosen photo into the image a request asks for, in the format it asks for.
///
/// The cover-cropped photo and its effect copy are kept per (photo, variant, size, style) in memory, so the
/// requests of one cell and window that differ only in `blur` or format cost a blend and an encode.
public struct Renderer: Sendable {
    struct PreparedKey: Hashable, Sendable {
        let photoID: String
        let size: PixelSize
        let style: EffectStyle
    }

    let encoders: EncoderSettings
    let limits: DecodeLimits
    let gate: RenderGate
    let prepared: MemoryLRU<PreparedKey, PreparedImages>

    public init(encoders: EncoderSettings, limits: DecodeLimits, memoryBudget: Int, maxPendingRenders: Int) {
        self.encoders = encoders
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
        let encoders = self.encoders
        return try await gate.run { try prepared.encoded(hundredths: spec.blurHundredths, format: spec.format, settings: encoders) }
    }
}
