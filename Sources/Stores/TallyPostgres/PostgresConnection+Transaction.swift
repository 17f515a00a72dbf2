extension PostgresConnection {
    /// `BEGIN`, `body`'s statements, `COMMIT`, in one call on the connection's queue; `ROLLBACK`
    /// when `body` throws (its error is rethrown). One hop to the queue and back instead of one per
    /// statement: on a busy machine each hop waits for a thread to be scheduled, and a collector's
    /// commit round is on its requests' latency path. Cancellation cancels the running statement.
    package func transaction<Result: Sendable>(
        _ body: @escaping @Sendable (Transaction) throws -> Result
    ) async throws -> Result {
        try await run { connection in
            _ = try connection.execute("BEGIN", nil)
            do {
                let result = try body(Transaction(connection: connection))
                _ = try connection.execute("COMMIT", nil)
                return result
            } catch {
                _ = try? connection.execute("ROLLBACK", nil)
                throw error
            }
        }
    }

    /// The statements of a ``PostgresConnection/transaction(_:)``, run where it runs.
    package struct Transaction {
        let connection: PostgresConnection

        /// Statements without parameters; their rows.
        @discardableResult
        package func execute(_ sql: String) throws -> Rows { try connection.execute(sql, nil) }

        /// A statement with text parameters (nil: `NULL`); its rows.
        @discardableResult
        package func query(_ sql: String, _ parameters: [String?]) throws -> Rows {
            try connection.execute(sql, parameters)
        }

        /// A prepared statement with binary parameters; its rows.
        @discardableResult
        package func queryPrepared(_ name: String, binary parameters: [[UInt8]]) throws -> Rows {
            try connection.executePrepared(name, binary: parameters)
        }

        /// `COPY … FROM STDIN` with `data`; the rows copied.
        @discardableResult
        package func copyIn(_ sql: String, data: [UInt8]) throws -> Int { try connection.copy(sql, data) }
    }
}
