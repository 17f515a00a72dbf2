import CLibPQ
import Dispatch
import Foundation

/// One connection to PostgreSQL through libpq: the only type in tally that touches libpq.
///
/// libpq calls block, so each connection runs them on its own serial dispatch queue (a dedicated
/// thread while busy), never on Swift's cooperative pool; callers `await` the results. Queries
/// take parameters only (`$1`, `$2`): values are never spliced into SQL text.
public final class PostgresConnection: @unchecked Sendable {
    // @unchecked: `connection` is only used on `queue`.
    private let queue: DispatchQueue
    private var connection: OpaquePointer?
    private let secret: String?

    /// Connects with a URL (`postgresql://user:password@host:5432/db?sslmode=require`) or a libpq
    /// conninfo string; nil uses libpq's own `PG*` environment variables.
    public static func connect(_ conninfo: String?) async throws -> PostgresConnection {
        let connection = PostgresConnection(secret: Self.password(in: conninfo))
        try await connection.run { connection in
            let handle = PQconnectdb(conninfo ?? "")
            guard let handle, PQstatus(handle) == CONNECTION_OK else {
                let message = handle.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
                if let handle { PQfinish(handle) }
                throw PostgresError(
                    .connection,
                    message: message.trimmingCharacters(in: .whitespacesAndNewlines),
                    secret: connection.secret
                )
            }
            // The server's NOTICEs ("schema tally already exists, skipping" at every migrate) are
            // not for tally's users; libpq would print them to stderr. Warnings still are.
            PQsetNoticeProcessor(
                handle,
                { _, message in
                    guard let message, strncmp(message, "WARNING", 7) == 0 else { return }
                    _ = write(2, message, strlen(message))
                },
                nil
            )
            connection.connection = handle
        }
        return connection
    }

    private init(secret: String?) {
        self.secret = secret
        queue = DispatchQueue(label: "tally.postgres.connection")
    }

    deinit {
        if let connection { PQfinish(connection) }
    }

    /// Closes the connection.
    public func close() async {
        try? await run { connection in
            if let handle = connection.connection { PQfinish(handle) }
            connection.connection = nil
        }
    }

    /// Rows of text values (nil for NULL).
    public typealias Rows = [[String?]]

    /// Runs one statement with parameters (text format) and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ parameters: [String?] = []) async throws -> Rows {
        try await run { connection in try connection.execute(sql, parameters) }
    }

    /// Prepares `sql` as statement `name` on this connection (parsed and planned once).
    public func prepare(_ name: String, _ sql: String) async throws {
        try await run { connection in
            let handle = try connection.handle()
            let result = PQprepare(handle, name, sql, 0, nil)
            defer { PQclear(result) }
            try connection.check(result, handle)
        }
    }

    /// Runs prepared statement `name` with parameters in binary format (each in the wire format of
    /// the type the statement casts it to) and returns its rows.
    @discardableResult
    public func queryPrepared(_ name: String, binary parameters: [[UInt8]]) async throws -> Rows {
        try await run { connection in try connection.executePrepared(name, binary: parameters) }
    }

    /// Runs several statements without parameters (migrations, BEGIN/COMMIT).
    public func execute(_ sql: String) async throws {
        try await run { connection in _ = try connection.execute(sql, nil) }
    }

    /// `COPY … FROM STDIN` with `data` as the rows (in the COPY's format); returns the rows copied.
    @discardableResult
    public func copyIn(_ sql: String, data: [UInt8]) async throws -> Int {
        try await run { connection in try connection.copy(sql, data) }
    }

    /// Runs `body` on this connection's queue.
    private func run<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> Result) async throws
        -> Result
    {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do {
                    continuation.resume(returning: try body(self))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    // MARK: On the queue

    private func handle() throws -> OpaquePointer {
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            throw PostgresError(.connection, message: "not connected", secret: secret)
        }
        return connection
    }

    private func execute(_ sql: String, _ parameters: [String?]?) throws -> Rows {
        let connection = try handle()
        let result: OpaquePointer?
        if let parameters {
            var cStrings: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.map { strdup($0) } ?? nil }
            defer { for pointer in cStrings { free(pointer) } }
            result = cStrings.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
                    PQexecParams(connection, sql, Int32(parameters.count), nil, values.baseAddress, nil, nil, 0)
                }
            }
        } else {
            result = PQexec(connection, sql)
        }
        defer { PQclear(result) }
        try check(result, connection)
        return rows(result)
    }

    private func executePrepared(_ name: String, binary parameters: [[UInt8]]) throws -> Rows {
        let connection = try handle()
        let lengths = parameters.map { Int32($0.count) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        // One buffer holds every value, so that all the pointers stay valid during the call.
        let joined = parameters.flatMap { $0 }
        let result = joined.withUnsafeBufferPointer { buffer in
            var offset = 0
            let values: [UnsafePointer<CChar>?] = lengths.map { length in
                defer { offset += Int(length) }
                return buffer.baseAddress.map { UnsafeRawPointer($0 + offset).assumingMemoryBound(to: CChar.self) }
            }
            return PQexecPrepared(connection, name, Int32(parameters.count), values, lengths, formats, 0)
        }
        defer { PQclear(result) }
        try check(result, connection)
        return rows(result)
    }

    private func copy(_ sql: String, _ data: [UInt8]) throws -> Int {
        let connection = try handle()
        let start = PQexec(connection, sql)
        guard PQresultStatus(start) == PGRES_COPY_IN else {
            defer { PQclear(start) }
            try check(start, connection)
            throw PostgresError(.copy, message: "COPY did not start", secret: secret)
        }
        PQclear(start)
        // In 256 KB pieces: libpq copies what it is given into its output buffer, which keeps its
        // largest size for the connection's life (a whole 2.5 MB batch per connection, before).
        let sent = data.withUnsafeBufferPointer { buffer -> Int32 in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                var offset = 0
                while offset < buffer.count {
                    let length = min(262_144, buffer.count - offset)
                    guard PQputCopyData(connection, pointer + offset, Int32(length)) == 1 else { return -1 }
                    offset += length
                }
                return 1
            }
        }
        let ended = PQputCopyEnd(connection, sent == 1 ? nil : "client failed to send the data")
        guard sent == 1, ended == 1 else {
            throw PostgresError(.copy, message: String(cString: PQerrorMessage(connection)), secret: secret)
        }
        var copied = 0
        while let result = PQgetResult(connection) {
            defer { PQclear(result) }
            try check(result, connection)
            copied += Int(String(cString: PQcmdTuples(result))) ?? 0
        }
        return copied
    }

    private func check(_ result: OpaquePointer?, _ connection: OpaquePointer) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK, status != PGRES_EMPTY_QUERY else { return }
        let message = String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
        let sqlState = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        let code: PostgresError.Code = PQstatus(connection) == CONNECTION_OK ? .server : .connection
        throw PostgresError(code, sqlState: sqlState, message: message, secret: secret)
    }

    private func rows(_ result: OpaquePointer?) -> Rows {
        guard let result, PQresultStatus(result) == PGRES_TUPLES_OK else { return [] }
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        var rows: Rows = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                values.append(
                    PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
                )
            }
            rows.append(values)
        }
        return rows
    }

    /// The password in a URL or conninfo, to scrub from messages.
    static func password(in conninfo: String?) -> String? {
        guard let conninfo else { return ProcessInfo.processInfo.environment["PGPASSWORD"] }
        if let url = URLComponents(string: conninfo), url.scheme?.hasPrefix("postgres") == true {
            return url.password ?? url.percentEncodedPassword
        }
        if let range = conninfo.range(of: #"password\s*=\s*('[^']*'|\S+)"#, options: .regularExpression) {
            let field = conninfo[range]
            return field.split(separator: "=", maxSplits: 1).last.map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: "' "))
            }
        }
        return nil
    }
}
