import Foundation
import Logging

/// Writes each log entry as one JSON object on one line of standard output (`server.logFormat: json`), for Loki,
/// Elasticsearch or a cloud log service: `time` (ISO 8601, UTC, milliseconds), `level`, `logger`, `message`, then the
/// entry's metadata as its own keys (`trace_id` and `span_id` among them while a trace is active), the same keys the
/// text format shows.
package struct JSONLogHandler: LogHandler {
    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    package init(
        label: String,
        metadataProvider: Logger.MetadataProvider? = nil,
        write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardOutput
    ) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var fields = self.metadata
        if let provided = self.metadataProvider?.get() { fields.merge(provided) { _, new in new } }
        if let metadata = event.metadata { fields.merge(metadata) { _, new in new } }
        var line = "{\"time\":\(Self.quoted(Self.timestamp()))"
        line += ",\"level\":\(Self.quoted(event.level.rawValue)),\"logger\":\(Self.quoted(self.label))"
        line += ",\"message\":\(Self.quoted(event.message.description))"
        for key in fields.keys.sorted() where !["time", "level", "logger", "message"].contains(key) {
            if let value = fields[key] { line += ",\(Self.quoted(key)):\(Self.json(value))" }
        }
        self.write(line + "}\n")
    }

    package static let standardOutput: @Sendable (String) -> Void = { line in
        FileHandle.standardOutput.write(Data(line.utf8))
    }

    private static func json(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let string): return self.quoted(string)
        case .stringConvertible(let convertible): return self.quoted(convertible.description)
        case .array(let values): return "[" + values.map(self.json).joined(separator: ",") + "]"
        case .dictionary(let members):
            return "{" + members.keys.sorted().map { "\(self.quoted($0)):\(self.json(members[$0] ?? ""))" }.joined(separator: ",") + "}"
        }
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func timestamp() -> String {
        Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
