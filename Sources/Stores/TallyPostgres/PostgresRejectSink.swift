public import TallyPipeline

/// Keeps rejects in `tally.failed_events`, one row each (`reason`: the code; `detail`: where it
/// came from and the message; `event`: the event's JSON, or `null`), in one transaction per
/// ``store(_:)``, committed before it returns. One connection, reopened after a failure.
///
/// `tally serve --sink postgres` keeps its rejects here; give it to a pipeline as its
/// `deadLetters` to keep dead letters beside the events PostgreSQL refused.
public actor PostgresRejectSink: RejectSink {
    private let conninfo: String?
    private var connection: PostgresConnection?

    /// A sink for the database at `conninfo` (URL or conninfo; nil: libpq's `PG*` variables).
    public init(conninfo: String?) {
        self.conninfo = conninfo
    }

    /// Stores `rejects`.
    /// - Throws: ``PostgresError``; none of them is kept then.
    public func store(_ rejects: [Reject]) async throws {
        guard !rejects.isEmpty else { return }
        let connection = try await open()
        let rows = rejects.map(FailedEventRows.parameters)
        do {
            try await connection.transaction { transaction in
                for row in rows { try transaction.query(FailedEventRows.insert, row) }
            }
        } catch {
            await connection.close()
            self.connection = nil
            throw error
        }
    }

    /// Closes the connection.
    public func close() async {
        await connection?.close()
        connection = nil
    }

    private func open() async throws -> PostgresConnection {
        if let connection, connection.isReusable { return connection }
        await connection?.close()
        let opened = try await PostgresConnection.connect(conninfo)
        connection = opened
        return opened
    }
}

extension PostgresRejectSink: ReadinessProbe {
    /// Whether the database answers a query on the sink's connection.
    package func isReachable() async -> Bool {
        do {
            let connection = try await open()
            _ = try await connection.query("SELECT 1")
            return true
        } catch {
            await close()
            return false
        }
    }
}
