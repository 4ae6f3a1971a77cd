/// A decode or encode failure. The description is short and bounded, safe for logs and metric labels.
public struct ImagingError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable, Equatable {
        case corrupt
        case tooLarge
        case unsupported
        case encodeFailed
    }

    let kind: Kind
    public let message: String

    public static func corrupt(_ message: String) -> Self { .init(kind: .corrupt, message: message) }
    public static func tooLarge(_ message: String) -> Self { .init(kind: .tooLarge, message: message) }
    public static func unsupported(_ message: String) -> Self { .init(kind: .unsupported, message: message) }
    public static func encodeFailed(_ message: String) -> Self { .init(kind: .encodeFailed, message: message) }

    public var isTooLarge: Bool { self.kind == .tooLarge }
    public var description: String { String(self.message.prefix(200)) }
}
