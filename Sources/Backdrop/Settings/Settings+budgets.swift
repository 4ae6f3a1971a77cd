import Logging

/// What the settings come to on this machine: the budgets computed from them and the process's open-file limit.
extension Settings {
    /// Descriptors: cache files held open for sendfile take at most a quarter of the limit, connections stay well below
    /// the rest (256 kept for the database, Flickr, logs and the listening socket).
    struct Descriptors {
        let limit: Int
        let openFiles: OpenFileBudget
        let maxConnections: Int
    }

    func descriptors(limit: Int? = DescriptorLimit.current) -> Descriptors {
        let limit = limit ?? 1024
        let openFiles = OpenFileBudget(limit: min(self.cache.openFiles, limit / 4))
        return Descriptors(
            limit: limit,
            openFiles: openFiles,
            maxConnections: min(self.server.maxConnections, max(16, limit - openFiles.limit - 256))
        )
    }

    /// The logger at the configured level.
    func logger(_ given: Logger?) -> Logger {
        var logger = given ?? Logger(label: "backdrop")
        logger.logLevel = Logger.Level(rawValue: self.server.logLevel.rawValue) ?? .info
        return logger
    }

    /// Whatever start-up should say about the settings: deprecated keys, and budgets lowered to fit the machine.
    func announceWarnings(_ descriptors: Descriptors, to logger: Logger) {
        for warning in self.warnings { logger.warning("\(warning)") }
        if descriptors.maxConnections < self.server.maxConnections {
            logger.warning(
                "server.maxConnections lowered to stay within the open-file limit",
                metadata: ["maxConnections": "\(descriptors.maxConnections)", "openFileLimit": "\(descriptors.limit)"]
            )
        }
    }
}
