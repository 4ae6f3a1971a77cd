import Foundation
import Logging
import ServiceContextModule
import Synchronization
import Testing
import W3CTraceContext

@testable import Backdrop
@testable import OTel

/// The pieces of tracing and JSON logs that need no collector (the traces themselves: Tests/tracing/check_traces.py).
@Suite("Telemetry")
struct TelemetryTests {
    typealias Middleware = TraceMiddleware<BackdropRequestContext>

    @Test func theQueryKeepsOnlyTheValuesThatSayNothingOfThePlace() {
        #expect(Middleware.redacted("lat=48.8566&lon=2.3522&blur=0.5") == "lat=REDACTED&lon=REDACTED&blur=0.5")
        #expect(Middleware.redacted("cell=u09tv&LAT=1&x") == "cell=u09tv&LAT=REDACTED&x")
        #expect(Middleware.redacted("width=640&height=1136&style=dark&format=avif") == "width=640&height=1136&style=dark&format=avif")
        #expect(Middleware.redacted("l%61t=48.8566&l%6Fn=2.3522&blur=1") == "REDACTED&REDACTED&blur=1", "an encoded name is redacted whole")
        #expect(Middleware.redacted("la+t=48.85&where=48.85,2.35&=2") == "REDACTED&where=REDACTED&REDACTED")
        #expect(Middleware.redacted("blur=" + String(repeating: "a", count: 500)).count == 200)
    }

    @Test(
        "W3C traceparent",
        arguments: [
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", true),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", true),
            ("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later", true),
            ("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", true),
            ("x", false), ("", false),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-", false),
            ("00-00000000000000000000000000000000-00f067aa0ba902b7-01", false),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false),
            ("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false),
            ("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false),
            ("00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01", false),
            ("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", false),
            ("0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" + String(repeating: "-a", count: 4000), false),
        ]
    )
    func traceparents(_ text: String, valid: Bool) {
        #expect(Middleware.isValid(text) == valid, "\(text.prefix(80))")
    }

    @Test func aCallersTraceIsContinuedOnlyFromWhomTheSettingTrusts() throws {
        let caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let proxies = ClientAddress(trustedProxies: [try #require(IPRange("10.0.0.0/8"))])
        let sampling = TraceSampling(sampler: .parentBasedTraceIDRatio, ratio: 0)
        let trusted = Middleware(sampling: sampling, trust: .trusted, proxies: proxies)
        #expect(trusted.incoming(caller, peer: "10.1.2.3") == caller, "from the router")
        #expect(trusted.incoming(caller, peer: "203.0.113.9") == nil, "from a client: a new trace")
        #expect(trusted.incoming(caller, peer: nil) == nil)
        #expect(trusted.incoming("x", peer: "10.1.2.3") == nil, "invalid: ignored, even from the router")
        #expect(Middleware(sampling: sampling, trust: .always, proxies: proxies).incoming(caller, peer: "203.0.113.9") == caller)
        #expect(Middleware(sampling: sampling, trust: .never, proxies: proxies).incoming(caller, peer: "10.1.2.3") == nil)
        #expect(Middleware(sampling: sampling, trust: .always, proxies: proxies).incoming("ff-" + caller.dropFirst(3), peer: "10.1.2.3") == nil)
        // At ratio 0 an ignored traceparent is a request without one: never traced.
        #expect(!sampling.traces(traceparent: trusted.incoming(caller, peer: "203.0.113.9")))
        #expect(sampling.traces(traceparent: trusted.incoming(caller, peer: "10.1.2.3")))
    }

    @Test func jsonLogLinesAreOneObjectEachWithTheMetadataAsKeys() throws {
        let lines = Mutex<[String]>([])
        var handler = JSONLogHandler(label: "test", metadataProvider: .init { ["trace_id": "abc"] }) { line in lines.withLock { $0.append(line) } }
        handler.logLevel = .debug
        handler[metadataKey: "cell"] = "u09tv"
        let logger = Logger(label: "test") { _ in handler }
        logger.info("a \"quoted\"\nmessage\u{1}", metadata: ["n": "3", "list": ["a", "b"]])
        let written = lines.withLock { $0 }
        #expect(written.count == 1 && written[0].hasSuffix("}\n") && written[0].filter { $0 == "\n" }.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: Any])
        #expect(object["message"] as? String == "a \"quoted\"\nmessage\u{1}")
        #expect(object["level"] as? String == "info" && object["logger"] as? String == "test")
        #expect(object["cell"] as? String == "u09tv" && object["trace_id"] as? String == "abc" && object["n"] as? String == "3")
        #expect(object["list"] as? [String] == ["a", "b"])
        #expect((object["time"] as? String)?.hasSuffix("Z") == true)
    }

    @Test func tracesAreOnOnlyWithAnEndpoint() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("telemetry-\(UUID().uuidString).json")
        try Data("{}".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try Settings.load(file: file.path, environment: [:]).telemetry.enabled == false)
        #expect(try Settings.load(file: file.path, environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"]).telemetry.enabled)
        #expect(try Settings.load(file: file.path, environment: ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"]).telemetry.enabled)
        #expect(
            try Settings.load(file: file.path, environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"]).telemetry
                .enabled == false
        )
        #expect(try Settings.load(file: file.path, environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": ""]).telemetry.enabled == false)
        try Data(#"{"telemetry": {"otlpEndpoint": "http://c:4318", "sampler": "always_on", "resourceAttributes": {"a": "b"}}}"#.utf8).write(to: file)
        let settings = try Settings.load(file: file.path, environment: [:])
        #expect(settings.telemetry.enabled && settings.telemetry.sampler == .alwaysOn && settings.telemetry.resourceAttributes == ["a": "b"])
        try Data(#"{"telemetry": {"otlpEndpoint": "collector:4318"}}"#.utf8).write(to: file)
        #expect(throws: ConfigError.self) { try Settings.load(file: file.path, environment: [:]) }
        #expect(throws: ConfigError.self) { try Settings.load(file: file.path, environment: ["BACKDROP_LOG_FORMAT": "xml"]) }
    }

    @Test func theSamplerOfTheEnvironmentWinsAndABadOneIsAConfigError() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sampler-\(UUID().uuidString).json")
        try Data(#"{"telemetry": {"sampler": "always_on", "samplerRatio": 0.5}}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try Settings.load(file: file.path, environment: [:]).telemetry
        #expect(fromFile.sampler == .alwaysOn && fromFile.samplerRatio == 0.5)
        let fromEnvironment = try Settings.load(
            file: file.path,
            environment: ["OTEL_TRACES_SAMPLER": "TraceIdRatio", "OTEL_TRACES_SAMPLER_ARG": "0.01"]
        ).telemetry
        #expect(fromEnvironment.sampler == .traceIDRatio && fromEnvironment.samplerRatio == 0.01)
        for (key, value) in [("OTEL_TRACES_SAMPLER", "jaeger_remote"), ("OTEL_TRACES_SAMPLER_ARG", "1.5"), ("OTEL_TRACES_SAMPLER_ARG", "x")] {
            let error = #expect(throws: ConfigError.self, "\(key)=\(value)") { try Settings.load(file: file.path, environment: [key: value]) }
            #expect(error?.key == key)
        }
    }

    @Test func theRatioSamplerDecidesAsSwiftOTelsOwnForEveryTraceID() throws {
        let seed: UInt64 = 40
        var random = SeededGenerator(seed: seed)
        var ids = (0..<10_000).map { _ in TraceID.random(using: &random) }
        // And the edges: the low 8 bytes, as swift-otel loads them, at 0, at the largest value, and on either side of
        // each ratio's bound.
        func id(low value: UInt64) -> TraceID {
            let b = [UInt8](repeating: 0x5a, count: 8) + withUnsafeBytes(of: value) { Array($0) }
            return TraceID(bytes: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        }
        let ratios = [0.0, 0.0001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999, 1.0]
        ids += [id(low: 0), id(low: .max)]
        for ratio in ratios.dropFirst().dropLast() {
            let bound = UInt64(ratio * Double(UInt64.max))
            ids += [id(low: bound - 1), id(low: bound), id(low: bound + 1)]
        }
        var disagreements = [String]()
        for ratio in ratios {
            let ours = TraceSampling(sampler: .traceIDRatio, ratio: ratio)
            let theirs = OTelTraceIDRatioBasedSampler(ratio: ratio)
            for id in ids {
                let hex = withUnsafeBytes(of: id.bytes) { $0.map { String(format: "%02x", $0) }.joined() }
                let decided =
                    theirs.samplingResult(
                        operationName: "GET /background",
                        kind: .server,
                        traceID: id,
                        attributes: [:],
                        links: [],
                        parentContext: .topLevel
                    ).decision == .recordAndSample
                if ours.traces(traceparent: "00-\(hex)-00f067aa0ba902b7-01") != decided { disagreements.append("\(ratio) \(hex)") }
            }
        }
        #expect(disagreements.isEmpty, "seed \(seed): \(disagreements.count) decisions unlike swift-otel's, e.g. \(disagreements.prefix(3))")
    }

    @Test func sampledAtItsRatioWithoutASystemCallAndEveryCallerFollowed() {
        let draws = 100_000
        for ratio in [0.0, 0.01, 0.1, 0.5, 1.0] {
            let sampling = TraceSampling(sampler: .parentBasedTraceIDRatio, ratio: ratio)
            let traced = (0..<draws).count { _ in sampling.traces(traceparent: nil) }
            // Within five standard deviations of the binomial's mean.
            let spread = 5 * (Double(draws) * ratio * (1 - ratio)).squareRoot()
            #expect(abs(Double(traced) - Double(draws) * ratio) <= spread + 0.5, "ratio \(ratio): \(traced) of \(draws)")
        }
        let caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
        #expect(TraceSampling(sampler: .parentBasedTraceIDRatio, ratio: 0).traces(traceparent: caller), "the exporter follows its flag")
        #expect(TraceSampling(sampler: .parentBasedAlwaysOff, ratio: 1).traces(traceparent: caller))
        #expect(!TraceSampling(sampler: .parentBasedAlwaysOff, ratio: 1).traces(traceparent: nil))
        #expect(!TraceSampling(sampler: .alwaysOff, ratio: 1).traces(traceparent: caller))
        #expect(TraceSampling(sampler: .alwaysOn, ratio: 0).traces(traceparent: nil))
        // traceidratio: the trace ID's last 8 bytes in the machine's order, as swift-otel reads them, against the ratio
        // (a3ce929d0e0e4736 is 0x36470e0e9d92cea3 on a little-endian machine, 0.212 of 2^64).
        #expect(TraceSampling(sampler: .traceIDRatio, ratio: 0.22).traces(traceparent: caller))
        #expect(!TraceSampling(sampler: .traceIDRatio, ratio: 0.21).traces(traceparent: caller))
        #expect(TraceSampling.traceIDBits("garbage") == nil)
        #expect(
            TraceSamplerSetting.allCases.map(\.exporterSampler) == [
                .alwaysOn, .alwaysOff, .alwaysOn, .parentBasedAlwaysOn, .parentBasedAlwaysOn, .parentBasedAlwaysOn,
            ]
        )
    }
}
