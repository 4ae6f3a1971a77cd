/// Every setting of the service, by section (`Sections/`, each reading itself). Defaults match the shipped `config.json`;
/// a config file may leave keys out.
package struct Settings: Sendable, Equatable {
    package var server = Server()
    package var photos = Photos()
    package var render = Render()
    package var images = Images()
    package var flickr = Flickr()
    package var commons = Commons()
    package var cache = Cache()
    package var cluster = Cluster()
    package var telemetry = Telemetry()
    /// What reading the configuration found worth saying (old key names, for instance), to be logged at start.
    package var warnings: [String] = []

    package init() {}
}

package enum LogLevelSetting: String, Sendable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
}

package enum LogFormatSetting: String, Sendable, CaseIterable {
    case text, json
}

/// The samplers of `OTEL_TRACES_SAMPLER` that need nothing beyond a ratio.
package enum TraceSamplerSetting: String, Sendable, CaseIterable {
    case alwaysOn = "always_on"
    case alwaysOff = "always_off"
    case traceIDRatio = "traceidratio"
    case parentBasedAlwaysOn = "parentbased_always_on"
    case parentBasedAlwaysOff = "parentbased_always_off"
    case parentBasedTraceIDRatio = "parentbased_traceidratio"
}

/// Whose W3C `traceparent` a request's span continues (`telemetry.trustIncomingTraceparent`).
package enum TraceparentTrust: String, Sendable, CaseIterable {
    case trusted, always, never
}
