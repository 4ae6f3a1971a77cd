import Foundation

@testable import Backdrop

/// A configuration file's text, parsed as `--config` reads it.
enum ConfigText {
    static func parse(_ json: String) throws -> Settings { try Settings.parse(Data(json.utf8)) }

    static func configError(_ json: String) -> ConfigError? {
        do {
            _ = try parse(json)
            return nil
        } catch {
            return error as? ConfigError
        }
    }
}
