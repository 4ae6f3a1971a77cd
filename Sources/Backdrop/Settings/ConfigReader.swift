/// Reads typed, range-checked values out of one JSON object and remembers which keys were used, so that any
/// key left over can be reported as unknown.
struct ConfigReader {
    private let object: [String: JSONValue]
    private let path: String
    private var used = Set<String>()

    init(_ value: JSONValue, path: String) throws {
        guard case .object(let object) = value else {
            throw ConfigError(key: path.isEmpty ? "(top level)" : path, "must be an object, got \(value.typeName)")
        }
        self.object = object
        self.path = path
    }

    private func name(_ key: String) -> String { self.path.isEmpty ? key : "\(self.path).\(key)" }

    private mutating func value(_ key: String) -> JSONValue? {
        self.used.insert(key)
        return self.object[key]
    }

    mutating func section(_ key: String) throws -> ConfigReader? {
        guard let value = self.value(key) else { return nil }
        return try ConfigReader(value, path: self.name(key))
    }

    mutating func string(_ key: String, default fallback: String, allowEmpty: Bool = true) throws -> String {
        guard let value = self.value(key) else { return fallback }
        guard case .string(let string) = value else { throw ConfigError(key: self.name(key), "must be a string, got \(value.typeName)") }
        guard allowEmpty || !string.isEmpty else { throw ConfigError(key: self.name(key), "must not be empty") }
        return string
    }

    mutating func choice<T: RawRepresentable & CaseIterable>(_ key: String, default fallback: T) throws -> T where T.RawValue == String {
        let string = try self.string(key, default: fallback.rawValue)
        guard let value = T(rawValue: string) else {
            throw ConfigError(
                key: self.name(key),
                "must be one of \(T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), got \"\(string)\""
            )
        }
        return value
    }

    mutating func int(_ key: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let value = self.value(key) else { return fallback }
        guard case .number(let number) = value, number.rounded() == number, abs(number) < 1e15 else {
            throw ConfigError(key: self.name(key), "must be a whole number, got \(value.typeName == "a number" ? "\(value)" : value.typeName)")
        }
        guard range.contains(Int(number)) else {
            throw ConfigError(key: self.name(key), "must be between \(range.lowerBound) and \(range.upperBound), got \(Int(number))")
        }
        return Int(number)
    }

    mutating func double(_ key: String, default fallback: Double, in range: ClosedRange<Double>) throws -> Double {
        guard let value = self.value(key) else { return fallback }
        guard case .number(let number) = value else { throw ConfigError(key: self.name(key), "must be a number, got \(value.typeName)") }
        guard range.contains(number) else {
            throw ConfigError(key: self.name(key), "must be between \(range.lowerBound) and \(range.upperBound), got \(number)")
        }
        return number
    }

    mutating func strings(_ key: String, default fallback: [String]) throws -> [String] {
        guard let value = self.value(key) else { return fallback }
        guard case .array(let items) = value else { throw ConfigError(key: self.name(key), "must be an array of strings, got \(value.typeName)") }
        return try items.map {
            guard case .string(let string) = $0 else { throw ConfigError(key: self.name(key), "must be an array of strings") }
            return string
        }
    }

    /// The key to read for a setting renamed from `old` to `new`: `old` while only it is given (accepted for one release,
    /// with a warning naming the new key), else `new`. Giving both is an error.
    mutating func renamed(_ old: String, to new: String, warnings: inout [String]) throws -> String {
        guard self.object[old] != nil else { return new }
        guard self.object[new] == nil else {
            throw ConfigError(key: self.name(old), "is the old name of \(self.name(new)); give only \(self.name(new))")
        }
        warnings.append("configuration key \(self.name(old)) is deprecated: use \(self.name(new)) (the old name is accepted until the next release)")
        return old
    }

    /// An object of strings (`{"name": "value"}`).
    mutating func stringMap(_ key: String, default fallback: [String: String]) throws -> [String: String] {
        guard let value = self.value(key) else { return fallback }
        guard case .object(let members) = value else { throw ConfigError(key: self.name(key), "must be an object of strings, got \(value.typeName)") }
        return try members.reduce(into: [:]) { result, member in
            guard case .string(let string) = member.value else {
                throw ConfigError(key: "\(self.name(key)).\(member.key)", "must be a string")
            }
            result[member.key] = string
        }
    }

    /// Whether the object gives `key`, a setting no longer used: accepted, and never read.
    mutating func ignored(_ key: String) throws -> Bool {
        self.value(key) != nil
    }

    /// Fails on the first key of this object that was never read.
    func rejectUnknownKeys() throws {
        if let unknown = self.object.keys.sorted().first(where: { !self.used.contains($0) }) {
            throw ConfigError(key: self.name(unknown), "unknown key")
        }
    }
}
