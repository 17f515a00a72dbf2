package import TallyPipeline

extension ClickHouseError: ClassifiedError {
    /// Server error codes that the same request meets again: the data or the schema is wrong
    /// (types, parsing, unknown tables or columns), or who asks may not (credentials, read-only).
    /// docs/scale-out.md has the table.
    static let permanentCodes: Set<Int> = [
        6,  // CANNOT_PARSE_TEXT
        16,  // NO_SUCH_COLUMN_IN_TABLE
        26, 27,  // CANNOT_PARSE_QUOTED_STRING, CANNOT_PARSE_INPUT_ASSERTION_FAILED
        33,  // CANNOT_READ_ALL_DATA: a RowBinary row that does not fit the columns
        38, 41, 69, 70, 72,  // CANNOT_PARSE_DATE / _DATETIME, ARGUMENT_OUT_OF_BOUND, CANNOT_CONVERT_TYPE, _NUMBER
        43, 44, 47, 48,  // ILLEGAL_TYPE_OF_ARGUMENT, ILLEGAL_COLUMN, UNKNOWN_IDENTIFIER, NOT_IMPLEMENTED
        53,  // TYPE_MISMATCH
        171,  // BLOCK_STRUCTURE_MISMATCH: a shard's table differs from the Distributed table
        60, 81,  // UNKNOWN_TABLE, UNKNOWN_DATABASE
        62,  // SYNTAX_ERROR
        117,  // INCORRECT_DATA
        164,  // READONLY
        // UNKNOWN_USER, WRONG_PASSWORD, REQUIRED_PASSWORD, IP_ADDRESS_NOT_ALLOWED, AUTHENTICATION_FAILED
        192, 193, 194, 195, 516,
        497,  // ACCESS_DENIED
    ]

    /// Whether retrying can help: a permanent server code (above) or a refused login is permanent;
    /// everything else (the connection, a timeout, too many parts or queries, memory, a shard that
    /// is down, an unknown code) is transient, as the pipeline takes any error it cannot classify.
    package var errorClass: SinkErrorClass {
        switch code {
        case .configuration, .migration: return .permanent
        case .server:
            if let serverCode { return Self.permanentCodes.contains(serverCode) ? .permanent : .transient }
            // No code: HTTP 401/403 refuse who asks; anything else may pass.
            return message.hasPrefix("HTTP 401") || message.hasPrefix("HTTP 403") ? .permanent : .transient
        default: return .transient
        }
    }

    /// `clickhouse_<code>`, as `tally.failed_events` records the server's refusals; the code's name
    /// (`connection`) without a server code.
    package var reasonCode: String { serverCode.map { "clickhouse_\($0)" } ?? code.description }
}

extension ClickHouseError {
    /// Server codes that mean a value did not fit its column: the event, not the store, is wrong.
    static let dataCodes: Set<Int> = [6, 26, 27, 33, 38, 41, 53, 69, 70, 72, 117]

    /// Whether the server refused the rows themselves (a value that does not fit a column): those
    /// rows go to `tally.failed_events`, and the others load.
    package var isDataProblem: Bool {
        code == .server && serverCode.map(Self.dataCodes.contains) == true
    }
}
