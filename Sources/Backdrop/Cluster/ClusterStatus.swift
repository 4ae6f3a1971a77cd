/// How a replica stands with the others, as `/health` reports it.
package enum ClusterStatus: String, Sendable, Codable {
    /// No database configured: this replica works alone.
    case local
    /// Sharing budget, searches and discoveries through PostgreSQL.
    case postgres
    /// A database is configured but cannot be reached: working alone on a conservative share of the budget.
    case degraded
}
