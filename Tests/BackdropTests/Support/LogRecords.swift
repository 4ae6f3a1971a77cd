import Logging
import Synchronization

/// Log lines captured by tests.
final class LogRecords: Sendable {
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let records = Mutex<[Record]>([])
    var all: [Record] { self.records.withLock { $0 } }
    /// A logger whose every line lands here.
    var logger: Logger { Logger(label: "test") { _ in CapturingLogHandler(records: self) } }
    func append(_ record: Record) { self.records.withLock { $0.append(record) } }
}

/// A log handler that keeps every line in ``LogRecords``.
struct CapturingLogHandler: LogHandler {
    let records: LogRecords
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = self.metadata.merging(event.metadata ?? [:]) { $1 }
        self.records.append(.init(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
    }
}
