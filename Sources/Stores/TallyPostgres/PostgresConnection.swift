import CLibPQ
import Dispatch
import Foundation
import TallyCore

/// One connection to PostgreSQL through libpq: the only type in tally that touches libpq.
///
/// libpq calls block, so each connection runs them on its own `BlockingIO` queue (a dedicated
/// thread while busy), never on Swift's cooperative pool; callers `await` the results. Cancelling
/// the calling task cancels the statement on the server (`PQcancel`): the call then throws
/// `CancellationError` and the connection stays usable. Queries take parameters only (`$1`, `$2`):
/// values are never spliced into SQL text.
public final class PostgresConnection: @unchecked Sendable {
    // @unchecked: `connection` is only used on `io`'s queue; `cancel` is behind its lock.
    private let io = BlockingIO(label: "tally.postgres.connection")
    private var connection: OpaquePointer?
    private let secret: String?
    /// libpq's cancel request for this connection (`PGcancel`), and the call in progress, if any.
    private let cancel = Locked<(request: OpaquePointer?, running: UInt64?, next: UInt64)>((nil, nil, 0))
    /// ``isReusable``, written on the queue as each call ends.
    private let reusable = Locked(false)

    /// Connects with a URL (`postgresql://user:password@host:5432/db?sslmode=require`) or a libpq
    /// conninfo string; nil uses libpq's own `PG*` environment variables.
    ///
    /// Unless the URL, conninfo or environment sets them, the connection gets a 10 s
    /// `connect_timeout` and TCP keepalives, so that neither a server that never answers nor a peer
    /// that vanished mid-statement can hang it for good.
    public static func connect(_ conninfo: String?) async throws -> PostgresConnection {
        let connection = PostgresConnection(secret: Self.password(in: conninfo))
        let options = Self.options(conninfo, environment: ProcessInfo.processInfo.environment)
        try await connection.run(cancellable: false) { connection in
            // dbname (the URL or conninfo, expanded) comes last, so that what it sets wins.
            let handle = withCStrings(options.map(\.keyword)) { keywords in
                withCStrings(options.map(\.value)) { values in PQconnectdbParams(keywords, values, 1) }
            }
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
            let request = PQgetCancel(handle)
            connection.cancel.withLock { $0.request = request }
        }
        return connection
    }

    private init(secret: String?) {
        self.secret = secret
    }

    deinit {
        if let request = cancel.withLock({ $0.request }) { PQfreeCancel(request) }
        if let connection { PQfinish(connection) }
    }

    /// Closes the connection.
    public func close() async {
        try? await run(cancellable: false) { connection in
            if let handle = connection.connection { PQfinish(handle) }
            connection.connection = nil
            connection.cancel.withLock { state in
                if let request = state.request { PQfreeCancel(request) }
                state.request = nil
            }
        }
    }

    /// Whether the connection can take the next statement: connected, and in no transaction (a
    /// statement cancelled mid-transaction leaves one to roll back).
    ///
    /// As libpq saw it when the last call ended (it learns of a broken connection only by doing
    /// I/O, so asking it again later would tell no more). Kept on the way out of every call rather
    /// than asked for with one more trip to the connection's queue: a pool checks it after each
    /// write, and on a busy machine that trip waited ~0.8 ms for a thread, on the latency of the
    /// collector's commit rounds.
    package var isReusable: Bool { reusable.withLock { $0 } }

    /// `ROLLBACK`, even from a cancelled task: it is what makes the connection usable again.
    package func rollback() async {
        _ = try? await run(cancellable: false) { connection in try connection.execute("ROLLBACK", nil) }
    }

    /// The value of connection option `keyword` in use (`connect_timeout`, `keepalives`, …).
    package func option(_ keyword: String) async -> String? {
        try? await run(cancellable: false) { connection -> String? in
            guard let handle = connection.connection, let options = PQconninfo(handle) else { return nil }
            defer { PQconninfoFree(options) }
            var option = options
            while let name = option.pointee.keyword {
                if String(cString: name) == keyword { return option.pointee.val.map { String(cString: $0) } }
                option += 1
            }
            return nil
        }
    }

    /// Rows of text values (nil for NULL).
    package typealias Rows = [[String?]]

    /// Runs one statement with parameters (text format) and returns its rows.
    @discardableResult
    package func query(_ sql: String, _ parameters: [String?] = []) async throws -> Rows {
        try await run { connection in try connection.execute(sql, parameters) }
    }

    /// Prepares `sql` as statement `name` on this connection (parsed and planned once).
    package func prepare(_ name: String, _ sql: String) async throws {
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
    package func queryPrepared(_ name: String, binary parameters: [[UInt8]]) async throws -> Rows {
        try await run { connection in try connection.executePrepared(name, binary: parameters) }
    }

    /// Runs several statements without parameters (migrations, BEGIN/COMMIT).
    package func execute(_ sql: String) async throws {
        try await run { connection in _ = try connection.execute(sql, nil) }
    }

    /// `COPY … FROM STDIN` with `data` as the rows (in the COPY's format); returns the rows copied.
    @discardableResult
    package func copyIn(_ sql: String, data: [UInt8]) async throws -> Int {
        try await run { connection in try connection.copy(sql, data) }
    }

    /// Runs `body` on this connection's queue. When the task is cancelled while `body` runs, the
    /// server is asked to cancel the statement, and the server's "canceled" error becomes
    /// `CancellationError`; a task already cancelled runs nothing.
    func run<Result: Sendable>(
        cancellable: Bool = true,
        _ body: @escaping @Sendable (PostgresConnection) throws -> Result
    ) async throws -> Result {
        guard cancellable else { return try await io.run { _ in try self.recordingState(body) } }
        try Task.checkCancellation()
        let id = cancel.withLock { state -> UInt64 in
            state.next += 1
            return state.next
        }
        do {
            return try await io.run(onCancel: { self.sendCancel(id) }) { interruption in
                self.cancel.withLock { $0.running = id }
                defer { self.cancel.withLock { $0.running = nil } }
                // Cancelled while queued: the server would ignore a cancel that came before the
                // statement, so nothing starts.
                if interruption.isRequested { throw CancellationError() }
                return try self.recordingState(body)
            }
        } catch let error as PostgresError where error.sqlState == "57014" && Task.isCancelled {
            throw CancellationError()
        }
    }

    /// Asks the server to cancel call `id`, and again every 100 ms while it still runs: the server
    /// ignores a cancel that reaches it between statements (a transaction's `BEGIN` done, its
    /// `COPY` not yet sent), and a statement started after that could wait on a lock for good.
    /// `PQcancel` opens a connection of its own, so it runs on a global queue, never on the
    /// cancelling (perhaps cooperative) thread. It holds the lock meanwhile, so that the next call
    /// cannot start and be cancelled instead.
    private func sendCancel(_ id: UInt64) {
        DispatchQueue.global().async {
            let running = self.cancel.withLock { state -> Bool in
                guard state.running == id, let request = state.request else { return false }
                var message = [CChar](repeating: 0, count: 256)
                _ = PQcancel(request, &message, Int32(message.count))
                return true
            }
            guard running else { return }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { self.sendCancel(id) }
        }
    }

    // MARK: On the queue

    /// `body`, then ``isReusable`` as it left the connection (whether it returned or threw).
    private func recordingState<Result>(_ body: (PostgresConnection) throws -> Result) rethrows -> Result {
        defer {
            let usable = connection.map { PQstatus($0) == CONNECTION_OK && PQtransactionStatus($0) == PQTRANS_IDLE }
            reusable.withLock { $0 = usable ?? false }
        }
        return try body(self)
    }

    func handle() throws -> OpaquePointer {
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            throw PostgresError(.connection, message: "not connected", secret: secret)
        }
        return connection
    }

    func execute(_ sql: String, _ parameters: [String?]?) throws -> Rows {
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

    func executePrepared(_ name: String, binary parameters: [[UInt8]]) throws -> Rows {
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

    func copy(_ sql: String, _ data: [UInt8]) throws -> Int {
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

    func check(_ result: OpaquePointer?, _ connection: OpaquePointer) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK, status != PGRES_EMPTY_QUERY else { return }
        let report = String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
        func field(_ code: Character) -> String? {
            result.flatMap { PQresultErrorField($0, Int32(code.asciiValue!)) }.map { String(cString: $0) }
        }
        let code: PostgresError.Code = PQstatus(connection) == CONNECTION_OK ? .server : .connection
        // The primary message alone: the DETAIL and CONTEXT lines of the whole report quote the
        // refused rows' values (PostgresError keeps the report apart, out of its description).
        if let primary = field("M") {
            throw PostgresError(code, sqlState: field("C"), message: primary, serverMessage: report, secret: secret)
        }
        throw PostgresError(code, sqlState: field("C"), message: report, secret: secret)
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
}
