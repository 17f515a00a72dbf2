import TallyCore
import TallyPostgres

/// Rejected events in `tally.failed_events` (reason, detail: request id, index, source, path and
/// message; event: the event's JSON or `null`), one transaction per round, committed before
/// ``store(_:)`` returns. One connection, reopened after a failure.
package actor PostgresRejectSink: RejectSink {
    private let conninfo: String?
    private var connection: PostgresConnection?

    /// A sink for the database at `conninfo` (nil: libpq's `PG*` variables).
    package init(conninfo: String?) {
        self.conninfo = conninfo
    }

    package func store(_ rejects: [RejectedEvent]) async throws {
        guard !rejects.isEmpty else { return }
        let connection = try await open()
        do {
            try await connection.execute("BEGIN")
            for reject in rejects {
                let detail =
                    "request \(reject.requestID) index \(reject.index) source \(reject.source) at \(reject.path): "
                    + reject.message
                try await connection.query(
                    "INSERT INTO tally.failed_events (failed_at, reason, detail, event) VALUES ($1::timestamptz, $2, $3, $4)",
                    [
                        reject.receivedAt.rfc3339, reject.reason, detail,
                        reject.event.map { String(decoding: $0, as: UTF8.self) } ?? "null",
                    ]
                )
            }
            try await connection.execute("COMMIT")
        } catch {
            await connection.close()
            self.connection = nil
            throw error
        }
    }

    package func isReachable() async -> Bool {
        do {
            let connection = try await open()
            _ = try await connection.query("SELECT 1")
            return true
        } catch {
            await connection?.close()
            connection = nil
            return false
        }
    }

    /// Closes the connection.
    package func close() async {
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
