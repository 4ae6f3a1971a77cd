extension Settings {
    /// `cluster`: sharing one Flickr key's budget, searches and discoveries among replicas through PostgreSQL.
    package struct Cluster: Sendable, Equatable {
        /// `postgresURL`: `postgres://user:password@host:port/database`, parsed once here; nil (an empty URL): this
        /// replica works alone, as on one machine.
        package var postgres: PostgresURL? = nil
        /// How long a replica's claim on a cell-window lasts; one that dies holding it delays the cell by at most this
        /// (`leaseSeconds`).
        package var lease = Duration.seconds(15)
        /// The most a request waits on the database in all, before it goes on with this replica's local state
        /// (`timeoutSeconds`).
        package var timeout = Duration.seconds(2)
        /// Replicas assumed to share the key while the database is unreachable: each takes that share of the budget.
        package var expectedReplicas = 4

        package init() {}
    }
}

extension Settings.Cluster: SettingsSection {
    static let name = "cluster"

    mutating func read(_ section: inout SectionReader) throws {
        func parse(_ text: String) throws -> PostgresURL? {
            guard !text.isEmpty else { return nil }
            do { return try PostgresURL(text) } catch let error as PostgresURL.Invalid { throw Invalid(error.description) }
        }
        self.postgres = try section.value(
            "postgresURL",
            default: self.postgres,
            env: ["BACKDROP_POSTGRES_URL"],
            flag: "--postgres-url",
            show: { $0?.masked ?? "" },
            json: { value in
                guard case .string(let text) = value else { throw Invalid("must be a string, got \(value.typeName)") }
                return try parse(text)
            },
            text: parse
        )
        self.lease = try section.duration("leaseSeconds", default: self.lease, unit: .seconds, in: 1...300, whole: false)
        self.timeout = try section.duration("timeoutSeconds", default: self.timeout, unit: .seconds, in: 0.1...30, whole: false)
        self.expectedReplicas = try section.int("expectedReplicas", default: self.expectedReplicas, in: 1...1000)
    }
}
