import PostgresNIO

extension PostgresRowSequence {
    /// A query that always answers one row answered none.
    struct NoRow: Error {}

    /// The first row (the functions called answer one).
    func firstRow() async throws -> PostgresRow {
        for try await row in self { return row }
        throw NoRow()
    }
}
