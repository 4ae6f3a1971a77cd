import Foundation

/// A parsed JSON document that keeps booleans, numbers and strings apart, for strict config checking.
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            // The only JSON left is a number past Double's range (`1e400`): no number at all, rather than a document
            // that cannot be read (one field of one photo would sink a whole answer).
            self = .null
        }
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue {
    /// The configuration file's top-level object, parsed strictly: invalid JSON, a key given twice and a top level
    /// that is not an object fail, naming `source` or the key.
    static func strictObject(_ data: Data, source: String) throws -> [String: JSONValue] {
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ConfigError(key: "", "\(source) is not valid JSON (\(Self.describe(error)))")
        }
        if let duplicate = Self.firstDuplicateKey(in: data) {
            throw ConfigError(key: duplicate, "is given twice in \(source)")
        }
        guard case .object(let root) = json else { throw ConfigError(key: "(top level)", "must be an object, got \(json.typeName)") }
        return root
    }

    private static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            return (context.underlyingError.map { "\($0)" } ?? context.debugDescription).prefix(200).description
        }
        return "\(error)".prefix(200).description
    }

    /// The dotted path of the first key that appears twice in one object of `data` (`server.port`), or nil. JSON
    /// decoders keep one of the two silently; a config file that says a setting twice is a mistake to name. Run on text
    /// that parses as JSON (so it need not check the grammar).
    static func firstDuplicateKey(in data: Data) -> String? {
        struct Frame {
            let isObject: Bool
            let path: String
            var keys = Set<String>()
            var expectingKey = true
            var lastKey = ""
        }
        let bytes = [UInt8](data)
        var frames = [Frame]()
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let parent = frames.last
                let path = parent.map { $0.isObject ? ($0.path.isEmpty ? $0.lastKey : "\($0.path).\($0.lastKey)") : $0.path } ?? ""
                frames.append(Frame(isObject: bytes[index] == UInt8(ascii: "{"), path: path))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = frames.popLast()
            case UInt8(ascii: ","):
                if !frames.isEmpty { frames[frames.count - 1].expectingKey = true }
            case UInt8(ascii: "\""):
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
                if var frame = frames.last, frame.isObject, frame.expectingKey {
                    let raw = Data(bytes[index...min(end, bytes.count - 1)])
                    let key = (try? JSONDecoder().decode(String.self, from: raw)) ?? String(decoding: raw, as: UTF8.self)
                    if frame.keys.contains(key) { return frame.path.isEmpty ? key : "\(frame.path).\(key)" }
                    frame.keys.insert(key)
                    frame.lastKey = key
                    frame.expectingKey = false
                    frames[frames.count - 1] = frame
                }
                index = end
            default:
                break
            }
            index += 1
        }
        return nil
    }
}
