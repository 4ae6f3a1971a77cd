import Foundation

/// The typed values a section reads, each from the file's JSON or from a variable's or flag's text.
extension SectionReader {
    mutating func string(
        _ key: String,
        default fallback: String,
        allowEmpty: Bool = true,
        env: [String] = [],
        flag: String? = nil,
        emptyVariableIsUnset: Bool = false,
        show: (String) -> String = { $0 },
        check: (String) throws -> Void = { _ in }
    ) throws -> String {
        func accept(_ string: String) throws -> String {
            guard allowEmpty || !string.isEmpty else { throw Invalid("must not be empty") }
            try check(string)
            return string
        }
        return try self.value(
            key,
            default: fallback,
            env: env,
            flag: flag,
            emptyVariableIsUnset: emptyVariableIsUnset,
            show: show,
            json: { value in
                guard case .string(let string) = value else { throw Invalid("must be a string, got \(value.typeName)") }
                return try accept(string)
            },
            text: accept
        )
    }

    mutating func int(_ key: String, default fallback: Int, in range: ClosedRange<Int>, env: [String] = [], flag: String? = nil) throws -> Int {
        try self.number(key, default: fallback, in: range, env: env, flag: flag, kind: "a whole number") { number in
            number.rounded() == number && abs(number) < 1e15 ? Int(total: number) : nil
        }
    }

    mutating func double(
        _ key: String,
        default fallback: Double,
        in range: ClosedRange<Double>,
        env: [String] = [],
        emptyVariableIsUnset: Bool = false
    ) throws -> Double {
        try self.number(key, default: fallback, in: range, env: env, emptyVariableIsUnset: emptyVariableIsUnset, kind: "a number") { $0 }
    }

    /// A number within `range`: from the file's JSON number (`exact` says whether it is one of `T`'s), or a variable's
    /// or flag's text.
    private mutating func number<T: LosslessStringConvertible & Comparable>(
        _ key: String,
        default fallback: T,
        in range: ClosedRange<T>,
        env: [String],
        flag: String? = nil,
        emptyVariableIsUnset: Bool = false,
        kind: String,
        exact: (Double) -> T?
    ) throws -> T {
        func accept(_ number: T) throws -> T {
            guard range.contains(number) else { throw Invalid("must be between \(range.lowerBound) and \(range.upperBound), got \(number)") }
            return number
        }
        return try self.value(
            key,
            default: fallback,
            env: env,
            flag: flag,
            emptyVariableIsUnset: emptyVariableIsUnset,
            show: { "\($0)" },
            json: { value in
                guard case .number(let number) = value else { throw Invalid("must be \(kind), got \(value.typeName)") }
                guard let exact = exact(number) else { throw Invalid("must be \(kind), got \(number)") }
                return try accept(exact)
            },
            text: { text in
                guard let number = T(text) else { throw Invalid("must be \(kind), got \"\(text.prefix(64))\"") }
                return try accept(number)
            }
        )
    }

    /// A duration written as a number of `unit`s (whole ones when `whole`).
    mutating func duration(
        _ key: String,
        default fallback: Duration,
        unit: DurationUnit,
        in range: ClosedRange<Double>,
        whole: Bool = true
    ) throws
        -> Duration
    {
        let number =
            whole
            ? Double(
                try self.int(key, default: Int(total: fallback / unit.duration), in: Int(total: range.lowerBound)...Int(total: range.upperBound))
            )
            : try self.double(key, default: fallback / unit.duration, in: range)
        return unit.duration * number
    }

    /// One of `T`'s names, exactly as written in the file; a variable's may be in any case (`OTEL_TRACES_SAMPLER`).
    mutating func choice<T: RawRepresentable & CaseIterable>(
        _ key: String,
        default fallback: T,
        env: [String] = [],
        emptyVariableIsUnset: Bool = false
    ) throws -> T where T.RawValue == String {
        func accept(_ string: String, anyCase: Bool) throws -> T {
            guard let value = T(rawValue: string) ?? (anyCase ? T(rawValue: string.lowercased()) : nil) else {
                throw Invalid("must be one of \(T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), got \"\(string.prefix(64))\"")
            }
            return value
        }
        return try self.value(
            key,
            default: fallback,
            env: env,
            emptyVariableIsUnset: emptyVariableIsUnset,
            show: \.rawValue,
            json: { value in
                guard case .string(let string) = value else { throw Invalid("must be a string, got \(value.typeName)") }
                return try accept(string, anyCase: false)
            },
            text: { try accept($0, anyCase: true) }
        )
    }

    /// An array of strings in the file, a comma-separated list in a variable, each item made a `T` by `item`, the whole
    /// list then passed to `check` (which throws ``Invalid`` for a list its items cannot refuse alone).
    mutating func list<T>(
        _ key: String,
        default fallback: [T],
        env: [String] = [],
        show: (T) -> String,
        check: ([T]) throws -> Void = { _ in },
        item: (String) throws -> T
    ) throws -> [T] {
        try self.value(
            key,
            default: fallback,
            env: env,
            show: { "[" + $0.map { "\"\(show($0))\"" }.joined(separator: ", ") + "]" },
            json: { value in
                guard case .array(let items) = value else { throw Invalid("must be an array of strings, got \(value.typeName)") }
                let list = try items.map {
                    guard case .string(let string) = $0 else { throw Invalid("must be an array of strings") }
                    return try item(string)
                }
                try check(list)
                return list
            },
            text: { text in
                let list = try text.split(separator: ",").map { try item($0.trimmingCharacters(in: .whitespaces)) }
                try check(list)
                return list
            }
        )
    }

    mutating func strings(
        _ key: String,
        default fallback: [String],
        env: [String] = [],
        check: (String) throws -> Void = { _ in }
    ) throws -> [String] {
        try self.list(
            key,
            default: fallback,
            env: env,
            show: { $0 },
            item: { string in
                try check(string)
                return string
            }
        )
    }

    /// An object of strings (`{"name": "value"}`), from the file only.
    mutating func stringMap(_ key: String, default fallback: [String: String]) throws -> [String: String] {
        try self.value(
            key,
            default: fallback,
            show: { $0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") },
            json: { value in
                guard case .object(let members) = value else { throw Invalid("must be an object of strings, got \(value.typeName)") }
                return try members.reduce(into: [:]) { result, member in
                    guard case .string(let string) = member.value else { throw Invalid("\(member.key) must be a string") }
                    result[member.key] = string
                }
            },
            text: { _ in fallback }
        )
    }
}
