/// A configuration problem, naming the key (or environment variable) at fault.
public struct ConfigError: Error, CustomStringConvertible, Equatable {
    public let key: String
    public let problem: String

    public init(key: String, _ problem: String) {
        self.key = key
        self.problem = problem
    }

    public var description: String { self.key.isEmpty ? self.problem : "\(self.key): \(self.problem)" }
}
