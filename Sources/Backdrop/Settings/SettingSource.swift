import Foundation

/// Where a setting's value came from: what `backdrop config --print` shows beside it.
package enum SettingSource: Sendable, Equatable, CustomStringConvertible {
    case byDefault
    /// The configuration file, by its path.
    case file(String)
    /// An environment variable, by its name.
    case environment(String)
    /// A command-line flag, by its name (`--port`).
    case flag(String)

    package var description: String {
        switch self {
        case .byDefault: "default"
        case .file(let path): "file \(path)"
        case .environment(let name): "environment \(name)"
        case .flag(let name): "flag \(name)"
        }
    }

    /// The name an error about the value gives: the variable or the flag, else the key itself.
    func errorName(key: String) -> String {
        switch self {
        case .byDefault, .file: key
        case .environment(let name), .flag(let name): name
        }
    }
}

/// One setting as read: its key, its value as printed (secrets masked) and where it came from.
package struct SettingRecord: Sendable, Equatable {
    package let key: String
    package let value: String
    package let source: SettingSource
}

/// What the settings are read from, in rising precedence: the configuration file, the environment, the command line.
struct SettingsInput {
    /// The file's top-level object.
    let root: [String: JSONValue]
    /// The file's name, as errors and sources give it.
    let fileName: String
    /// Relative folders from the file (and the defaults) are resolved against it; nil leaves them as given.
    let fileFolder: URL?
    let environment: [String: String]
    /// Command-line values by flag (`--port`).
    let flags: [String: String]
    /// Relative folders from the environment are resolved against it.
    let workingDirectory: URL
}

/// A value's reason for being refused, which the reader turns into a ``ConfigError`` naming whoever gave the value.
struct Invalid: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// The unit a duration setting's number is written in (`…Ms`, `…Seconds`, `…Hours`).
enum DurationUnit {
    case milliseconds, seconds, hours

    var duration: Duration {
        switch self {
        case .milliseconds: .milliseconds(1)
        case .seconds: .seconds(1)
        case .hours: .seconds(3600)
        }
    }
}
