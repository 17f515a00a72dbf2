import TallyPipeline

extension PostgresSink: ReadinessProbe {
    /// Whether the database answers a query, on a connection of its own (the loaders' may all be
    /// busy with rounds).
    package func isReachable() async -> Bool {
        guard let connection = try? await PostgresConnection.connect(conninfo) else { return false }
        let answered = (try? await connection.query("SELECT 1")) != nil
        await connection.close()
        return answered
    }
}
