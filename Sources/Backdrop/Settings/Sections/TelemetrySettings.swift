extension Settings {
    /// `telemetry`: OpenTelemetry traces over OTLP/HTTP, off unless an endpoint is given here or by
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); the standard `OTEL_*` variables override
    /// these.
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

        package init() {}
    }
}

extension Settings.Telemetry: SettingsSection {
    static let name = "telemetry"

    mutating func read(_ section: inout SectionReader) throws {
        self.otlpEndpoint = try section.string(
            "otlpEndpoint",
            default: self.otlpEndpoint,
            check: { url in
                if !url.isEmpty { try Settings.checkHTTPURL(url) }
            }
        )
        let endpoints = ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"].compactMap(section.variable) + [self.otlpEndpoint]
        self.enabled =
            endpoints.contains { !$0.isEmpty } && section.variable("OTEL_SDK_DISABLED")?.lowercased() != "true"
            && section.variable("OTEL_TRACES_EXPORTER")?.lowercased() != "none"
        self.serviceName = try section.string("serviceName", default: self.serviceName, allowEmpty: false)
        self.sampler = try section.choice("sampler", default: self.sampler, env: ["OTEL_TRACES_SAMPLER"], emptyVariableIsUnset: true)
        self.samplerRatio = try section.double(
            "samplerRatio",
            default: self.samplerRatio,
            in: 0...1,
            env: ["OTEL_TRACES_SAMPLER_ARG"],
            emptyVariableIsUnset: true
        )
        self.trustIncomingTraceparent = try section.choice("trustIncomingTraceparent", default: self.trustIncomingTraceparent)
        self.resourceAttributes = try section.stringMap("resourceAttributes", default: self.resourceAttributes)
    }
}
