import Backdrop
import Foundation
import Logging
import OTel
import ServiceLifecycle

/// Traces and the logs' format, set up once per process before the application is built.
enum Telemetry {
    /// Bootstraps the logging system: text or JSON lines on standard output, with `trace_id` and `span_id` while a
    /// trace is active (when tracing is on).
    static func bootstrapLogging(format: LogFormatSetting, tracing: Bool) {
        let provider: Logger.MetadataProvider? = tracing ? OTel.makeLoggingMetadataProvider() : nil
        switch format {
        case .text:
            LoggingSystem.bootstrap(
                { label, provider in StreamLogHandler.standardOutput(label: label, metadataProvider: provider) },
                metadataProvider: provider
            )
        case .json:
            LoggingSystem.bootstrap({ label, provider in JSONLogHandler(label: label, metadataProvider: provider) }, metadataProvider: provider)
        }
    }

    /// Bootstraps tracing when it is on (`telemetry` settings, or `OTEL_EXPORTER_OTLP_ENDPOINT`): OTLP over HTTP
    /// (protobuf) to the collector, spans batched in a bounded queue and dropped rather than waited for when the
    /// collector is slow or gone. Returns the service that exports them (run first, so that it stops last and flushes
    /// what the server's last requests made); nil when tracing is off. The standard `OTEL_*` variables override the
    /// settings.
    static func bootstrapTracing(_ telemetry: Settings.Telemetry, environment: [String: String], logger: Logger) throws -> (any Service)? {
        guard telemetry.enabled else { return nil }
        var environment = environment
        func fallback(_ key: String, _ value: String) {
            if environment[key]?.isEmpty ?? true { environment[key] = value }
        }
        if !telemetry.otlpEndpoint.isEmpty { fallback("OTEL_EXPORTER_OTLP_ENDPOINT", telemetry.otlpEndpoint) }
        fallback("OTEL_SERVICE_NAME", telemetry.serviceName)
        // Backdrop decides which requests are traced (TraceSampling, from the settings and OTEL_TRACES_SAMPLER read
        // into them); the exporter keeps what it is handed, following a caller's flag where the sampler is parent-based.
        environment["OTEL_TRACES_SAMPLER"] = telemetry.sampler.exporterSampler.rawValue
        environment["OTEL_TRACES_SAMPLER_ARG"] = nil
        if !telemetry.resourceAttributes.isEmpty {
            // The environment's attributes win over the file's, key by key.
            let given = environment["OTEL_RESOURCE_ATTRIBUTES"].map { [$0] } ?? []
            let fromFile = telemetry.resourceAttributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            environment["OTEL_RESOURCE_ATTRIBUTES"] = (fromFile + given).joined(separator: ",")
        }
        for key in ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] {
            if let value = environment[key], value.hasPrefix("grpc") {
                throw ConfigError(key: key, "Backdrop exports traces over OTLP/HTTP only: use http/protobuf (the collector's port 4318)")
            }
        }
        // Traces only: Backdrop's metrics stay Prometheus's and its logs stay on standard output.
        environment["OTEL_TRACES_EXPORTER"] = "otlp"
        environment["OTEL_METRICS_EXPORTER"] = "none"
        environment["OTEL_LOGS_EXPORTER"] = "none"
        var configuration = OTel.Configuration.default
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        // A batch export that the collector does not answer gives up after 3 s (AsyncHTTPClient keeps retrying a refused
        // connection until then); shutdown flushes at most twice that.
        configuration.traces.otlpExporter.timeout = .seconds(3)
        configuration.traces.batchSpanProcessor.exportTimeout = .seconds(3)
        return try OTel.bootstrap(configuration: configuration, environment: environment)
    }
}
