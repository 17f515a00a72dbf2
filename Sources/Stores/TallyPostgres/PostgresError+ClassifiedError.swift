public import TallyPipeline

extension PostgresError: ClassifiedError {
    /// SQLSTATE classes whose errors a later attempt can escape: the connection, the server's
    /// state, concurrency with other transactions, resources, timeouts.
    static let transientClasses: Set<String> = [
        "08",  // connection exception
        "25",  // invalid transaction state: a fresh connection starts clean
        "40",  // transaction rollback: serialization failure, deadlock
        "53",  // insufficient resources: disk full, out of memory, too many connections
        "57",  // operator intervention: admin or crash shutdown, cannot connect now, query canceled
        "58",  // system error: I/O error
    ]

    /// Codes of transient classes that are permanent all the same.
    static let permanentCodes: Set<String> = [
        "57P04"  // database dropped
    ]

    /// Codes outside the transient classes that are transient all the same.
    static let transientCodes: Set<String> = [
        "55P03",  // lock not available (lock_timeout)
        "55006",  // object in use
    ]

    /// Whether retrying can help, from the SQLSTATE (docs/operations.md has the table).
    ///
    /// A statement the server refused for any other reason (permission denied, undefined table,
    /// a data error) fails the same way next time: permanent. Without a SQLSTATE, a broken
    /// connection is transient, unless its message says the server refused the login itself (libpq
    /// does not expose the SQLSTATE of a refused connection, so the message is read, in English).
    public var errorClass: SinkErrorClass {
        if let sqlState {
            if Self.permanentCodes.contains(sqlState) { return .permanent }
            if Self.transientCodes.contains(sqlState) { return .transient }
            return Self.transientClasses.contains(String(sqlState.prefix(2))) ? .transient : .permanent
        }
        switch code {
        case .connection, .copy: return isRefusedLogin ? .permanent : .transient
        default: return .permanent
        }
    }

    /// `postgres_<SQLSTATE>`, as `tally.failed_events` records the server's refusals; the code's
    /// name (`connection`) without a SQLSTATE.
    public var reasonCode: String { sqlState.map { "postgres_" + $0 } ?? code.description }

    /// A connection the server refused for who asked, not for its state: bad credentials, no
    /// `pg_hba.conf` entry, a missing role or database, no CONNECT right.
    var isRefusedLogin: Bool {
        let refusals = [
            "authentication failed", "no pg_hba.conf entry", "does not exist", "permission denied",
            "password is required", "no password supplied",
        ]
        return refusals.contains { message.contains($0) }
    }
}
