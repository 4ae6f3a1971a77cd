/// A configuration problem, naming the key (or environment variable) at fault.
package struct ConfigError: Error, CustomStringConvertible, Equatable {
    package let key: String
    package let problem: String

    package init(key: String, _ problem: String) {
        self.key = key
        self.problem = problem
    }

    package var description: String { self.key.isEmpty ? self.problem : "\(self.key): \(self.problem)" }
}
