import Synchronization

/// Which requests get a trace, decided before any span is made: a request left out costs a header lookup and a
/// random number, where swift-otel's own sampler would first make three random IDs (three `getrandom` calls) and a
/// span to drop. The exporter's sampler is then set to keep what it is handed
/// (``TraceSamplerSetting/exporterSampler``), so the settings' `sampler` and `samplerRatio` (or `OTEL_TRACES_SAMPLER`
/// and its argument) mean what OpenTelemetry says they mean.
package final class TraceSampling: Sendable {
    let sampler: TraceSamplerSetting
    /// `samplerRatio` as swift-otel's `TraceIdRatioBased` sampler holds it: a 64-bit number under this is sampled;
    /// `.min` samples nothing and `.max` everything.
    private let bound: UInt64
    /// A SplitMix64 sequence: one relaxed atomic add a decision, no lock, no system call.
    private let state: Atomic<UInt64>

    package init(sampler: TraceSamplerSetting, ratio: Double) {
        self.sampler = sampler
        self.bound = ratio <= 0 ? .min : ratio >= 1 ? .max : UInt64(total: ratio * Double(UInt64.max))
        self.state = Atomic(UInt64.random(in: .min ... .max))
    }

    /// Whether to start the request's server span, given its `traceparent` (nil when it has none). A started span
    /// is recorded, except under a parent-based sampler when the caller's trace is not sampled (the exporter's
    /// sampler follows the caller's flag).
    func traces(traceparent: String?) -> Bool {
        switch self.sampler {
        case .alwaysOff: false
        case .alwaysOn, .parentBasedAlwaysOn: true
        case .parentBasedAlwaysOff: traceparent != nil
        case .parentBasedTraceIDRatio: traceparent != nil || self.sampled(self.draw())
        case .traceIDRatio: self.sampled(traceparent.flatMap(Self.traceIDBits) ?? self.draw())
        }
    }

    private func sampled(_ value: UInt64) -> Bool {
        switch self.bound {
        case .min: false
        case .max: true
        default: value < self.bound
        }
    }

    private func draw() -> UInt64 {
        var z = self.state.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The trace ID's last 8 bytes (its last 16 hex digits in a `traceparent`, `00-<32 hex>-<16 hex>-<2 hex>`) read
    /// as swift-otel's `TraceIdRatioBased` sampler reads them, in the machine's byte order, so that Backdrop and
    /// swift-otel services sampling one trace decide alike (`TelemetryTests` holds the two to it).
    static func traceIDBits(_ traceparent: String) -> UInt64? {
        let fields = traceparent.split(separator: "-")
        guard fields.count >= 4, fields[1].utf8.count == 32, let written = UInt64(fields[1].suffix(16), radix: 16) else { return nil }
        return UInt64(bigEndian: written)  // the bytes as they stand in memory, loaded in the machine's order
    }
}

extension TraceSamplerSetting {
    /// The sampler the exporter runs under ``TraceSampling``: it keeps what it is handed, and follows a caller's flag
    /// where this one is parent-based.
    package var exporterSampler: TraceSamplerSetting {
        switch self {
        case .alwaysOff: .alwaysOff
        case .alwaysOn, .traceIDRatio: .alwaysOn
        case .parentBasedAlwaysOn, .parentBasedAlwaysOff, .parentBasedTraceIDRatio: .parentBasedAlwaysOn
        }
    }
}
