import NIOCore
import Tracing

/// Turns a chosen photo into the image a request asks for, in the format it asks for.
///
/// The cover-cropped photo and its effect copy are kept per (photo, variant, size, style) in memory, so the
/// requests of one cell and window that differ only in `blur` or format cost a blend and an encode. Every job on the
/// pool goes through the ``RenderGate`` on behalf of the request's client.
struct Renderer: Sendable {
    /// Where a photo's encoded bytes come from, at a size that covers the render (the photo source's `imageData`).
    package typealias Loader = @Sendable (SourcePhoto, PixelSize) async throws -> EncodedImage

    struct PreparedKey: Hashable, Sendable {
        let photoID: String
        let size: PixelSize
        let style: EffectStyle
        let crop: CropMode
    }

    let encoders: EncoderSettings
    let limits: DecodeLimits
    let gate: RenderGate
    let prepared: MemoryLRU<PreparedKey, PreparedImages>
    /// Each photo's measures (``PhotoQuality``), by photo id: a photo is measured once, at the first size it is
    /// prepared at, and judged by them at every size, so that no size sees other faces.
    let measures = MemoryLRU<String, PhotoQuality>(budget: Renderer.measuresKept) { _ in 1 }
    static let measuresKept = 4096
    let metrics: BackdropMetrics

    package init(encoders: EncoderSettings, limits: DecodeLimits, memoryBudget: Int, gate: RenderGate, metrics: BackdropMetrics = BackdropMetrics()) {
        self.encoders = encoders
        self.limits = limits
        self.gate = gate
        self.prepared = MemoryLRU(budget: memoryBudget) { $0.byteCount }
        self.metrics = metrics
    }

    package func render(_ photo: SourcePhoto, load: @escaping Loader, spec: RenderSpec, for client: RequestClient) async throws -> ByteBuffer {
        let (prepared, admitted) = try await self.prepared(photo, load: load, size: spec.size, style: spec.style, crop: spec.crop, for: client)
        // The lossy floor falls as density rises (``Density``).
        let encoders = self.encoders.at(spec.density)
        // The light effect (made once per prepared image, on first use), the blend at `blur`, and the encoder.
        return try await withRequestSpan("image.encode") { span in
            span.attributes["backdrop.format"] = spec.format.rawValue
            span.attributes["backdrop.blur"] = spec.blurHundredths
            let (bytes, fitted) = try await self.gate.run(.encode(spec.format), pixels: spec.size.pixelCount, client: client, continues: admitted) {
                try prepared.answer(hundredths: spec.blurHundredths, format: spec.format, settings: encoders)
            }
            span.attributes["backdrop.bytes"] = bytes.readableBytes
            if let fitted {
                span.attributes["backdrop.encoder_quality"] = fitted.quality
                span.attributes["backdrop.fidelity"] = fitted.outcome
                self.metrics.fidelity(spec.format.rawValue, outcome: fitted.outcome)
            }
            return bytes
        }
    }

    /// The light-effect layer of `photo` at `size` in `style`, in about a kilobyte (``BlurredPreview``), made from the
    /// same prepared images as the renders.
    package func preview(
        _ photo: SourcePhoto,
        load: @escaping Loader,
        size: PixelSize,
        style: EffectStyle,
        crop: CropMode,
        for client: RequestClient
    ) async throws -> BlurredPreview {
        let (prepared, admitted) = try await self.prepared(photo, load: load, size: size, style: style, crop: crop, for: client)
        return try await withRequestSpan("image.preview") { _ in
            try await self.gate.run(.preview, pixels: size.pixelCount, client: client, continues: admitted) {
                try BlurredPreview.make(photo: photo, prepared: prepared, style: style)
            }
        }
    }

    /// The photo cover-cropped to `size`, from memory or decoded now; `admitted` when this request's work was admitted
    /// by the gate on the way (it made the prepare or waited for another request's), so that its next job continues it.
    private func prepared(
        _ photo: SourcePhoto,
        load: @escaping Loader,
        size: PixelSize,
        style: EffectStyle,
        crop: CropMode,
        for client: RequestClient
    ) async throws -> (prepared: PreparedImages, admitted: Bool) {
        let (limits, queue, metrics) = (self.limits, self.gate, self.metrics)
        let key = PreparedKey(photoID: photo.id, size: size, style: style, crop: crop)
        if let hit = await self.prepared.cached(key) { return (hit, false) }
        // Photos from elsewhere pass the quality gate first; the stock photos were chosen by eye.
        let gate =
            photo.origin != .stock
            ? PhotoQuality.Expectation(sky: photo.sky, shown: photo.shown, misty: photo.misty, people: photo.showsPeople) : nil
        let (measures, known) = (self.measures, await self.measures.cached(photo.id))
        let prepared = try await self.prepared.value(for: key) {
            try await withRequestSpan("image.prepare") { span in
                span.attributes["backdrop.size"] = "\(size.width)x\(size.height)"
                let encoded = try await load(photo, size)
                span.attributes["backdrop.source_bytes"] = encoded.bytes.count
                let trace = requestTraceContext
                do {
                    let prepared = try await queue.run(.prepare, pixels: size.pixelCount, client: client) {
                        try PreparedImages.make(
                            from: encoded,
                            size: size,
                            style: style,
                            crop: crop,
                            limits: limits,
                            gate: gate,
                            measured: known,
                            trace: trace
                        )
                    }
                    if known == nil, let measured = prepared.measures { await measures.insert(measured, for: photo.id) }
                    if gate != nil { metrics.photoQuality(PhotoQuality.Verdict.pass.rawValue) }
                    return prepared
                } catch let rejected as PhotoRejected {
                    if known == nil, let measured = rejected.measures { await measures.insert(measured, for: photo.id) }
                    metrics.photoQuality(rejected.verdict.rawValue)
                    span.attributes["backdrop.quality"] = rejected.verdict.rawValue
                    throw rejected
                }
            }
        }
        return (prepared, true)
    }
}
