import Foundation

/// Reads one section of the settings strictly: each key from the file, else its environment variable, else its flag,
/// the last given winning. Every value is typed and range-checked, and a bad one fails naming whoever gave it (the
/// key, the variable or the flag); keys of the file's section that no one read are unknown. Remembers where each value
/// came from, for `backdrop config --print`.
///
/// Not swift-configuration's `ConfigReader`: its readers give the default (or nil) for a value of the wrong type and
/// tell only an access reporter, its JSON provider keeps one of two duplicate keys and lists no keys to find unknown
/// ones, and it knows no ranges (see docs/configuration.md).
struct SectionReader {
    let section: String
    private let object: [String: JSONValue]
    private let input: SettingsInput
    private var used = Set<String>()
    /// Keys of this section still given under another section's name (``moved(_:from:)``): the old name and its value.
    private var movedHere = [String: (old: String, value: JSONValue)]()
    private(set) var records: [SettingRecord] = []
    /// What reading found worth saying at start (an old key name, a retired key).
    var warnings: [String] = []

    init(_ section: String, input: SettingsInput) throws {
        self.section = section
        self.input = input
        switch input.root[section] {
        case nil: self.object = [:]
        case .object(let object)?: self.object = object
        case let value?: throw ConfigError(key: section, "must be an object, got \(value.typeName)")
        }
    }

    func name(_ key: String) -> String { "\(self.section).\(key)" }

    /// `key`'s value: its flag if given, else the first of its variables given, else the file's, else `fallback`.
    /// `json` reads the file's value and `text` a variable's or flag's; the reason either throws (``Invalid``) fails
    /// naming the key, the variable or the flag.
    mutating func value<T>(
        _ key: String,
        default fallback: T,
        env: [String] = [],
        flag: String? = nil,
        emptyVariableIsUnset: Bool = false,
        show: (T) -> String,
        json: (JSONValue) throws -> T,
        text: (String) throws -> T
    ) throws -> T {
        self.used.insert(key)
        var source = SettingSource.byDefault
        var result = fallback
        do {
            if let flag, let value = self.input.flags[flag] {
                source = .flag(flag)
                result = try text(value)
            } else if let variable = env.first(where: { self.input.environment[$0].map { !emptyVariableIsUnset || !$0.isEmpty } ?? false }),
                let value = self.input.environment[variable]
            {
                source = .environment(variable)
                result = try text(value)
            } else if let value = self.object[key] {
                source = .file(self.input.fileName)
                result = try json(value)
            } else if let (old, value) = self.movedHere[key] {
                source = .file(self.input.fileName)
                do { result = try json(value) } catch let invalid as Invalid { throw ConfigError(key: old, invalid.reason) }
            }
        } catch let invalid as Invalid {
            throw ConfigError(key: source.errorName(key: self.name(key)), invalid.reason)
        }
        self.records.append(SettingRecord(key: self.name(key), value: show(result), source: source))
        return result
    }

    /// An environment variable that sets no key by itself (`OTEL_SDK_DISABLED`).
    func variable(_ name: String) -> String? { self.input.environment[name] }

    /// The key to read for a setting renamed from `old` to `new`: `old` while only it is given (accepted for one release,
    /// with a warning naming the new key), else `new`. Giving both is an error.
    mutating func renamed(_ old: String, to new: String) throws -> String {
        guard self.object[old] != nil else { return new }
        guard self.object[new] == nil else {
            throw ConfigError(key: self.name(old), "is the old name of \(self.name(new)); give only \(self.name(new))")
        }
        self.deprecate(self.name(old), for: self.name(new))
        return old
    }

    /// A key that moved to this section from `section` (where that section's reader retires it): the old key's value is
    /// taken while only it is given (for one release, with a warning naming the new key). Giving both is an error.
    mutating func moved(_ key: String, from section: String) throws {
        guard case .object(let other)? = self.input.root[section], let value = other[key] else { return }
        let old = "\(section).\(key)"
        guard self.object[key] == nil else { throw ConfigError(key: old, "has moved to \(self.name(key)); give only \(self.name(key))") }
        self.deprecate(old, for: self.name(key))
        self.movedHere[key] = (old, value)
    }

    /// Says at start that the key `old` still works, for one release, and names `new`.
    private mutating func deprecate(_ old: String, for new: String) {
        self.warnings.append("configuration key \(old) is deprecated: use \(new) (the old name is accepted until the next release)")
    }

    /// A key that moved to another section, whose reader takes it from here (``moved(_:from:)``): not unknown here.
    mutating func movedAway(_ key: String) { self.used.insert(key) }

    /// A key (or variable) no longer used: accepted, never read, and reported with `warning`.
    mutating func retired(_ key: String, variable: String? = nil, warning: (String) -> String) {
        self.used.insert(key)
        if self.object[key] != nil { self.warnings.append(warning(self.name(key))) }
        if let variable, self.input.environment[variable] != nil { self.warnings.append(warning(variable)) }
    }

    /// Fails on the first key of the file's section that was never read.
    func finish() throws {
        if let unknown = self.object.keys.sorted().first(where: { !self.used.contains($0) }) {
            throw ConfigError(key: self.name(unknown), "unknown key")
        }
    }

    /// A folder: relative paths from the file (and the default) are resolved against the file's folder, from the
    /// environment against the working directory. With `emptyTurnsOff`, an empty value is kept (the feature is off).
    mutating func folder(_ key: String, default fallback: String, env: String, emptyTurnsOff: Bool = false) throws -> String {
        let given = try self.string(key, default: fallback, allowEmpty: emptyTurnsOff, env: [env])
        // The record `string` just made says where the value came from: a variable's path is the shell's, relative to
        // the working directory; a file's is relative to the file.
        guard !given.isEmpty, !given.hasPrefix("/"), let record = self.records.last else { return given }
        let base: URL? =
            switch record.source {
            case .environment: self.input.workingDirectory
            default: self.input.fileFolder
            }
        guard let base else { return given }
        let resolved = base.appendingPathComponent(given).standardizedFileURL.path
        self.records[self.records.count - 1] = SettingRecord(key: record.key, value: resolved, source: record.source)
        return resolved
    }
}
