import Foundation

extension Settings {
    /// Command-line values, which win over the environment and the file.
    package struct Overrides: Sendable {
        package var host: String?
        package var port: Int?
        package var postgresURL: String?

        package init(host: String? = nil, port: Int? = nil, postgresURL: String? = nil) {
            self.host = host
            self.port = port
            self.postgresURL = postgresURL
        }

        /// By flag, as the sections read them.
        var flags: [String: String] {
            var flags = [String: String]()
            flags["--host"] = self.host
            flags["--port"] = self.port.map(String.init)
            flags["--postgres-url"] = self.postgresURL
            return flags
        }
    }

    /// Reads `file`, then the environment, then `overrides`. Relative folders in the file are resolved against
    /// the file's folder; folders from the environment against the working directory.
    package static func load(file: String, environment: [String: String], overrides: Overrides = .init()) throws -> Settings {
        try self.read(file: file, environment: environment, overrides: overrides).settings
    }

    /// Every key as read, with its value (secrets masked) and where it came from: what `backdrop config --print` shows.
    package static func explain(file: String, environment: [String: String], overrides: Overrides = .init()) throws -> [SettingRecord] {
        try self.read(file: file, environment: environment, overrides: overrides).records
    }

    /// Parses config JSON strictly (unknown keys, wrong types and out-of-range values fail, naming the key), with
    /// `environment` over it; relative folders are left as given.
    package static func parse(_ data: Data, source: String = "config", environment: [String: String] = [:]) throws -> Settings {
        try self.read(data, input: (source, nil, environment, [:])).settings
    }

    private static func read(
        file: String,
        environment: [String: String],
        overrides: Overrides
    ) throws -> (settings: Settings, records: [SettingRecord]) {
        let url = URL(fileURLWithPath: file)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ConfigError(key: "", "cannot read config file \(file)")
        }
        return try self.read(data, input: (file, url.deletingLastPathComponent(), environment, overrides.flags))
    }

    /// Every section in turn, each reading itself; then the checks that span sections.
    private static func read(
        _ data: Data,
        input: (fileName: String, fileFolder: URL?, environment: [String: String], flags: [String: String])
    ) throws -> (settings: Settings, records: [SettingRecord]) {
        let root = try JSONValue.strictObject(data, source: input.fileName)
        let given = SettingsInput(
            root: root,
            fileName: input.fileName,
            fileFolder: input.fileFolder,
            environment: input.environment,
            flags: input.flags,
            workingDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        )
        var settings = Settings()
        var read = (records: [SettingRecord](), warnings: [String](), names: [String]())
        settings.server = try Self.section(settings.server, given, &read)
        settings.photos = try Self.section(settings.photos, given, &read)
        settings.render = try Self.section(settings.render, given, &read)
        settings.images = try Self.section(settings.images, given, &read)
        settings.commons = try Self.section(settings.commons, given, &read)
        settings.flickr = try Self.section(settings.flickr, given, &read)
        settings.cache = try Self.section(settings.cache, given, &read)
        settings.cluster = try Self.section(settings.cluster, given, &read)
        settings.telemetry = try Self.section(settings.telemetry, given, &read)
        settings.warnings = read.warnings
        if let unknown = root.keys.sorted().first(where: { !read.names.contains($0) }) { throw ConfigError(key: unknown, "unknown key") }
        guard settings.cluster.lease > settings.photos.requestDeadline else {
            throw ConfigError(
                key: "cluster.leaseSeconds",
                "must be more than photos.requestDeadlineSeconds (\(settings.photos.requestDeadline)), so that a live replica's search ends before its lease; got \(settings.cluster.lease)"
            )
        }
        return (settings, read.records)
    }

    private static func section<S: SettingsSection>(
        _ defaults: S,
        _ input: SettingsInput,
        _ read: inout (records: [SettingRecord], warnings: [String], names: [String])
    ) throws -> S {
        var section = defaults
        var reader = try SectionReader(S.name, input: input)
        try section.read(&reader)
        try reader.finish()
        read.records += reader.records
        read.warnings += reader.warnings
        read.names.append(S.name)
        return section
    }
}
